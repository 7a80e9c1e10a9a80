import type { ErrorRequestHandler, RequestHandler } from 'express';
import { AppError } from '../../../shared/errors/app-error';
import { OUTAGE_RETRY_AFTER_SECONDS, isDependencyOutage, outageRefusal } from '../../../shared/errors/outage';
import type { Logger } from '../../../shared/logging/logger';
import { redactUrl } from '../../../shared/logging/redact';
import { closeWithoutReading } from './body';

function formatBytes(n: number | undefined): string {
  if (!n) return 'the service allows';
  return n >= 1024 * 1024 ? `${Math.round(n / (1024 * 1024))} MB` : `${Math.round(n / 1024)} kB`;
}

/**
 * Turns anything thrown into an AppError: PostgreSQL or Redis unavailable is a 503 with Retry-After,
 * unknown failures a 500 without internals.
 */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) {
    // A 503 always says when to retry, also one carried back from a worker.
    if (err.status === 503 && !err.headers?.['Retry-After']) {
      return new AppError(err.code, err.message, { errors: err.errors, extensions: err.extensions, headers: { ...err.headers, 'Retry-After': String(OUTAGE_RETRY_AFTER_SECONDS) } });
    }
    return err;
  }
  if (isDependencyOutage(err)) {
    return outageRefusal('service-unavailable', 'A service the API depends on (the database or Redis) is unavailable at the moment; retry in a few seconds.');
  }
  const e = err as { type?: string; status?: number; statusCode?: number; message?: string; code?: string };
  // body-parser: malformed JSON, wrong charset, too large
  if (e?.type === 'entity.parse.failed') {
    // Where, not what: the parser's message quotes the body, which may hold a password.
    const at = /position (\d+)/.exec(e.message ?? '')?.[1];
    return new AppError('validation-failed', `The request body is not valid JSON${at ? ` (at character ${at})` : ''}.`, {
      errors: [{ path: 'body', message: 'malformed JSON' }],
    });
  }
  if (e?.type === 'entity.too.large') {
    return new AppError('payload-too-large', `The request body is larger than the limit of ${formatBytes((e as { limit?: number }).limit)}; send less per request (a bulk load: split its rows over several calls).`);
  }
  // The router could not decode a path parameter: a client's malformed percent-encoding.
  if (err instanceof URIError || (e?.status === 400 && typeof e?.message === 'string' && /decode/i.test(e.message))) {
    return new AppError('validation-failed', 'The path is not valid percent-encoded UTF-8.', { errors: [{ path: 'path', message: 'is not valid percent-encoded UTF-8' }] });
  }
  if (e?.type === 'charset.unsupported' || e?.type === 'encoding.unsupported') {
    return new AppError('validation-failed', `Unsupported body encoding: ${e.message}.`);
  }
  return new AppError('internal-error', 'An unexpected error occurred; it has been logged. Please retry or contact support.');
}

/**
 * Requests not served for an expected reason (load shed, an outage, a command timeout): the first of each
 * code in full, then a count per code every `everyMs`. Under overload the API refuses hundreds of
 * requests a second, and a log line each cost it as much CPU as writing the answers.
 */
export class NotServedLog {
  private readonly counts = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly log: Logger,
    private readonly everyMs = 10_000,
  ) {}

  add(code: string, line: () => void): void {
    const n = this.counts.get(code);
    if (n !== undefined) {
      this.counts.set(code, n + 1);
      return;
    }
    line();
    this.counts.set(code, 0);
    this.timer ??= setTimeout(() => this.flush(), this.everyMs).unref();
  }

  /** Logs the counts of the window and starts a new one (the next of each code is logged in full). */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    for (const [code, requests] of this.counts) {
      if (requests > 0) this.log.warn({ code, requests, seconds: this.everyMs / 1000 }, 'more requests not served');
    }
    this.counts.clear();
  }
}

/** The one place that answers an error: RFC 9457 problem+json with a stable `code`. */
export function errorHandler(log: Logger, notServed = new NotServedLog(log)): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const appError = toAppError(err);
    // The URL as logged and echoed is redacted: a refused request may carry a token or a PIN in it.
    const url = redactUrl(req.originalUrl);
    const where = { requestId: (req as { id?: string }).id, method: req.method, url };
    if (appError.status === 500) {
      log.error({ err, ...where }, 'request failed');
    } else if (appError.status > 500) {
      // Outages, shed load and command timeouts: expected under stress, not a defect; counted when many.
      notServed.add(appError.code, () => log.warn({ code: appError.code, detail: appError.message, ...where }, 'request not served'));
    }
    if (res.headersSent) {
      res.end();
      return;
    }
    for (const [k, v] of Object.entries(appError.headers ?? {})) res.setHeader(k, v);
    // A body nobody read (too large, or refused before it was read): the rest of it is never read.
    if (!req.complete && (req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined)) closeWithoutReading(req, res);
    res.status(appError.status).type('application/problem+json').send(JSON.stringify(appError.toProblem(url)));
  };
}

export const notFoundHandler: RequestHandler = (req, _res, next) => {
  next(new AppError('not-found', `No operation at ${req.method} ${redactUrl(req.path)}. See /api/v1/docs for the operations.`));
};
