/** Entry point: i18n first, then the app with its services. */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createServices, ServicesProvider } from './app/services.js';
import { App } from './components/app.js';
import { initI18n } from './i18n/index.js';
import './styles.css';

async function boot(): Promise<void> {
  await initI18n();
  const container = document.getElementById('root');
  if (!container) throw new Error('missing #root');
  createRoot(container).render(
    <StrictMode>
      <ServicesProvider services={createServices()}>
        <App />
      </ServicesProvider>
    </StrictMode>,
  );
}

void boot();
