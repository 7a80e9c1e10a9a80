import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import express, { Router, type RequestHandler } from 'express';

/**
 * services/hub: the hub, sorter, shipper, insights and console pages, plain files (no build step). `layout.html` is
 * the one head and body frame; `<page>.html` is the inside of each page's body, and `{{sign-in}}` in
 * them stands for the sign-in form they share (`sign-in.html`). Each page's script (`<page>.js`, an ES
 * module) imports what the pages share from `common.js`, served beside it under /hub/assets. Beside this file's folder when
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

const PAGES = { hub: 'Sorting wall hub', sorter: 'Sorter', insights: 'Sorting insights', shipper: 'Shipper', console: 'Console' } as const;

/**
 * The chart library of /insights (Chart.js, MIT), served from node_modules: the floor may have no
 * internet, and the CSP allows scripts of this origin only.
 */
export const CHART_LIBRARY = join(dirname(require.resolve('chart.js')), 'chart.umd.min.js');

/** A page as the browser gets it: its body inside the layout, with the shared fragments filled in. */
export async function renderPage(page: keyof typeof PAGES): Promise<string> {
  const [layout, body, signIn] = await Promise.all(['layout.html', `${page}.html`, 'sign-in.html'].map((f) => readFile(join(PAGES_DIR, f), 'utf8')));
  const fill: Record<string, string> = { title: PAGES[page], page, body: body!.replaceAll('{{sign-in}}', signIn!.trimEnd()) };
  return layout!.replace(/\{\{(title|page|body)\}\}/g, (_m, key: string) => fill[key]!);
}

/** GET /hub, /sorter, /shipper, /insights and /console (the pages), /hub/assets/* (their scripts and styles) and /hub/vendor/* (libraries). */
export function pagesRouter(): Router {
  const router = Router();
  router.use(['/hub', '/sorter', '/shipper', '/insights', '/console'], securityHeaders);
  // Read on each request, so an edited page shows on the next load. no-cache: the browser revalidates
  // (the ETag Express gives the answer), so a new version is picked up on the next load.
  const send = (page: keyof typeof PAGES): RequestHandler => async (_req, res, next) => {
    try {
      res.set('Cache-Control', 'no-cache').type('html').send(await renderPage(page));
    } catch (err) {
      next(err);
    }
  };
  router.get('/hub', send('hub'));
  router.get('/sorter', send('sorter'));
  router.get('/shipper', send('shipper'));
  router.get('/insights', send('insights'));
  router.get('/console', send('console'));
  router.get('/hub/vendor/chart.umd.min.js', (_req, res, next) => {
    res.sendFile(CHART_LIBRARY, { cacheControl: false, headers: { 'Cache-Control': 'no-cache' } }, (err) => err && next(err));
  });
  // Only the pages' scripts and styles: the folder also holds their templates, type declarations and tsconfig.
  router.use('/hub/assets', (req, _res, next) => (/^\/[\w.-]+\.(js|css)$/.test(req.path) ? next() : next('router')));
  router.use('/hub/assets', express.static(PAGES_DIR, { index: false, cacheControl: true, maxAge: 0, extensions: false, setHeaders: (res) => res.setHeader('Cache-Control', 'no-cache') }));
  return router;
}
