import pino, { type Logger } from 'pino';
import { redactSecrets, redactText } from './redact';

export type { Logger };

/** An error as pino writes it (type, message, stack, own fields), secrets replaced. */
export const errSerializer = (err: unknown) => redactSecrets(pino.stdSerializers.err(err as Error));

/**
 * One JSON logger per process; children carry the role (api, worker kind) and request ids. Every line
 * passes the one redaction (shared/logging/redact.ts): the fields of the logged object, an error's
 * message and stack, and the message text, so no secret reaches a log whatever a caller logs.
 */
export function createLogger(level: string, role: string, destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { role },
    timestamp: pino.stdTimeFunctions.isoTime,
    serializers: { err: errSerializer },
    formatters: { log: (obj) => redactSecrets(obj) },
    hooks: {
      logMethod(args, method) {
        // The message (and its printf arguments); the object, if any, is the formatter's.
        return method.apply(this, args.map((a) => (typeof a === 'string' ? redactText(a) : a)) as Parameters<typeof method>);
      },
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
