import pino, { type Logger } from 'pino';

export type { Logger };

/** One JSON logger per process; children carry the role (api, worker kind) and request ids. */
export function createLogger(level: string, role: string): Logger {
  return pino({ level, base: { role }, timestamp: pino.stdTimeFunctions.isoTime });
}
