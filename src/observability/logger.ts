/** Structured JSON logs (pino) on standard output. */
import { pino, type Logger } from 'pino';

export type { Logger };

export function createLogger(level: string): Logger {
  return pino({ level, base: { service: 'clarion' } });
}

export const silentLogger: Logger = pino({ level: 'silent' });
