import type { Request, Response } from 'express';
import type { Logger } from '../../../shared/logging/logger';
import { redactUrl } from '../../../shared/logging/redact';

type Level = 'silent' | 'debug' | 'info' | 'error';

/**
 * The level of a request's line: a refusal the error handler counts (503, 504: an outage, shed load, a
 * command timeout; NotServedLog logs the first of each code) none, a server error `error`, a client's
 * `info`, a success `debug`.
 */
export function requestLogLevel(statusCode: number, failed: boolean): Level {
  if (statusCode === 503 || statusCode === 504) return 'silent';
  if (failed || statusCode >= 500) return 'error';
  return statusCode >= 400 ? 'info' : 'debug';
}

/**
 * The access log: one line when a request ends (its response sent, or its connection closed first), at
 * `requestLogLevel`, with the request's id, method and URL without its secrets (a token in
 * ?access_token=, a PIN in ?pin=, a session token in the path), its status and how long it took; a
 * server error carries an `err`. A line the logger's level leaves out costs nothing beyond the two
 * listeners: nothing is serialized and no child logger is made for a request that is not logged (a
 * child per request, as pino-http makes, cost about 40 µs of every scan). Null when `log` writes no
 * `info` line (no request would be logged).
 */
export function requestLogger(log: Logger): ((req: Request, res: Response) => void) | null {
  if (!log.isLevelEnabled('info')) return null;
  return (req, res) => {
    const start = Date.now();
    const done = (err?: Error) => {
      res.off('finish', done);
      res.off('close', done);
      res.off('error', done);
      const level = requestLogLevel(res.statusCode, err instanceof Error);
      if (level === 'silent' || !log.isLevelEnabled(level)) return;
      const line = {
        req: { id: (req as { id?: string }).id, method: req.method, url: redactUrl(req.originalUrl) },
        res: { statusCode: res.statusCode },
        responseTime: Date.now() - start,
      };
      if (level === 'error') log.error({ ...line, err: err ?? new Error(`failed with status code ${res.statusCode}`) }, 'request errored');
      else log[level](line, 'request completed');
    };
    res.on('finish', done);
    res.on('close', done);
    res.on('error', done);
  };
}
