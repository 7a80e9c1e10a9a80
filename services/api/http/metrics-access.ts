import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import { AppError } from '../../../shared/errors/app-error';

/*
 * Who may read /metrics (docs/operations.md "Metrics and alerts"): a scraper that sends
 * `Authorization: Bearer <METRICS_TOKEN>`, or, without a token, a connection from this machine's
 * loopback (127.0.0.1, ::1) that no proxy forwarded. Never anyone on the floor network.
 */

const FORWARDING_HEADERS = ['x-forwarded-for', 'forwarded', 'x-real-ip'];

/** The connection's own address is loopback, and no proxy says it forwards someone else's request. */
function isLocal(req: Request): boolean {
  const address = req.socket.remoteAddress ?? '';
  const loopback = address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.');
  return loopback && !FORWARDING_HEADERS.some((h) => req.headers[h] !== undefined);
}

const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();

export function metricsAccess(metricsToken: string | undefined): RequestHandler {
  const expected = metricsToken ? digest(metricsToken) : null;
  return (req, _res, next) => {
    const header = req.headers.authorization;
    const given = typeof header === 'string' && /^Bearer\s+/i.test(header) ? header.replace(/^Bearer\s+/i, '').trim() : null;
    if (given !== null && expected) {
      if (timingSafeEqual(digest(given), expected)) return next();
      return next(new AppError('unauthorized', 'The metrics token is not the one set in METRICS_TOKEN.', { headers: { 'WWW-Authenticate': 'Bearer realm="metrics"' } }));
    }
    if (isLocal(req)) return next();
    next(
      new AppError(
        'unauthorized',
        expected
          ? '/metrics needs the metrics token: send "Authorization: Bearer <METRICS_TOKEN>".'
          : '/metrics answers only this machine (loopback) unless METRICS_TOKEN is set; then send "Authorization: Bearer <METRICS_TOKEN>".',
        { headers: { 'WWW-Authenticate': 'Bearer realm="metrics"' } },
      ),
    );
  };
}
