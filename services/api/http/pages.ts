import { existsSync } from 'node:fs';
import { join } from 'node:path';
import express, { Router, type RequestHandler } from 'express';

/**
 * services/hub: the hub and sorter pages, plain files (no build step). Beside this file's folder when
 * run from source (tsx); from the working directory when run compiled from dist/ (tsc copies no .js).
 */
export const PAGES_DIR = [join(__dirname, '..', '..', 'hub'), join(process.cwd(), 'services', 'hub')].find((d) => existsSync(join(d, 'hub.html'))) ?? join(__dirname, '..', '..', 'hub');

/**
 * Only the page's own files run: no inline script or style attribute in markup (styles set from JS
 * through the CSSOM are allowed by CSP), no other origin, no framing. 'self' covers ws:/wss: of
 * the same host in current browsers (CSP level 3).
 */
export const PAGES_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const securityHeaders: RequestHandler = (_req, res, next) => {
  res.setHeader('Content-Security-Policy', PAGES_CSP);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('X-Frame-Options', 'DENY');
  next();
};

/** GET /hub and /sorter (the pages) and /hub/assets/* (their scripts and styles). */
export function pagesRouter(): Router {
  const router = Router();
  router.use(['/hub', '/sorter'], securityHeaders);
  // no-cache: the browser revalidates (ETag), so a new version is picked up on the next load.
  const send = (file: string): RequestHandler => (_req, res) => res.sendFile(join(PAGES_DIR, file), { headers: { 'Cache-Control': 'no-cache' } });
  router.get('/hub', send('hub.html'));
  router.get('/sorter', send('sorter.html'));
  router.use('/hub/assets', express.static(PAGES_DIR, { index: false, cacheControl: true, maxAge: 0, extensions: false, setHeaders: (res) => res.setHeader('Cache-Control', 'no-cache') }));
  return router;
}
