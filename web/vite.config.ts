/**
 * Builds the web app from `web/` into `dist/web`, which `registerWebApp`
 * serves. Hashed file names under `assets/` let the server cache them forever.
 */
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root,
  base: '/',
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    assetsDir: 'assets',
    sourcemap: true,
    rolldownOptions: {
      // Rolldown warns when plugins took a large share of a build, which a busy or slow machine
      // makes happen now and then: advice for whoever tunes the build, not news for `npm start`.
      checks: { bundlerTimings: false },
      output: {
        codeSplitting: {
          // React and i18next change with a dependency update, not with every build of the app:
          // a chunk of their own stays cached across the app's releases, and keeps each chunk
          // under Vite's 500 kB warning.
          groups: [
            {
              name: 'vendor',
              test: /node_modules[\\/](react|react-dom|scheduler|i18next|react-i18next)[\\/]/,
            },
            // The QR code library, fetched once a QR code is drawn (`web/src/model/qr-image.ts`),
            // never with the page. The group only names its chunk (`qrcode-…`, not `browser-…`
            // after the package's entry file): a static import of `qrcode` would make the page
            // fetch it at once again.
            { name: 'qrcode', test: /node_modules[\\/](qrcode|dijkstrajs)[\\/]/ },
          ],
        },
      },
    },
  },
});
