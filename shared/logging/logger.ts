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

/** How often a repeating expected failure is logged (foldedWarning). */
export const FOLD_EVERY_MS = 5_000;

/**
 * A warning for a failure that repeats while a dependency is away (a Redis connection's reconnect
 * attempts, a queue worker's errors): the first in full, then at most one every 5 s with how many were
 * folded in; `err` as its message only (an expected condition needs no stack trace).
 */
export function foldedWarning(log: Pick<Logger, 'warn'> | undefined, what: string): (err: Error) => void {
  let lastLogged = 0;
  let folded = 0;
  return (err: Error) => {
    const now = Date.now();
    if (now - lastLogged < FOLD_EVERY_MS) {
      folded++;
      return;
    }
    const code = (err as { code?: unknown }).code;
    log?.warn({ err: err.message, ...(typeof code === 'string' ? { code } : {}), ...(folded ? { repeated: folded } : {}) }, `${what}: ${err.message}`);
    lastLogged = now;
    folded = 0;
  };
}
