import { randomUUID } from 'node:crypto';
import express, { type Express, type NextFunction, type Request, type RequestHandler, type Response, Router } from 'express';
import type { ApiDeps } from './api-deps';
import { errorHandler, notFoundHandler } from './http/error-handler';
import { metricsRegistry, setMetricsRoute, timeRequest } from './http/metrics';
import { metricsAccess } from './http/metrics-access';
import { buildOpenApi } from './http/openapi';
import { pagesRouter } from './http/pages';
import { readyzAnswer } from './http/readiness';
import { QUEUE_DASHBOARD_PATH, queueDashboard } from './http/queue-dashboard';
import { type RouteRunner, registerRoutes } from './http/register-routes';
import { requestLogger } from './http/request-log';
import { unstorableInput } from './http/validation';
import type { RouteDef } from './http/route';
import { apiRoutes, catalogRoutes, rootRoutes } from './routes';

export const API_PREFIX = '/api/v1';
export const CATALOG_PREFIX = '/catalog';

export interface RouteGroups {
  root: RouteDef[];
  api: RouteDef[];
  catalog: RouteDef[];
}

export const ROUTE_GROUPS: RouteGroups = { root: rootRoutes, api: apiRoutes, catalog: catalogRoutes };

export function openApiDocument(version = '1.0.0'): Record<string, unknown> {
  return buildOpenApi(
    [
      { prefix: '', routes: ROUTE_GROUPS.root },
      { prefix: API_PREFIX, routes: ROUTE_GROUPS.api },
      { prefix: CATALOG_PREFIX, routes: ROUTE_GROUPS.catalog },
    ],
    { version },
  );
}

/**
 * Answers a request before Express's router when it is one of the few sent all day (a sorter's scan and
 * confirm, a hub's read of its wall): true when it took it. Anything else, and any other form of those
 * paths (a trailing slash, other letter case, an escaped id), goes through the router as before.
 */
type HotRoutes = (req: Request, res: Response, next: NextFunction) => boolean;

function baseApp(deps: ApiDeps, hot?: HotRoutes): Express {
  const app = express();
  app.disable('x-powered-by');
  // X-Forwarded-For is believed only when the connection comes from a configured proxy (TRUST_PROXY);
  // otherwise anyone could pick the address the sign-in throttle counts.
  app.set('trust proxy', deps.config.TRUST_PROXY.length ? deps.config.TRUST_PROXY : false);
  // The access log (http/request-log.ts); null when no request line would be written.
  const logRequest = requestLogger(deps.log);
  // What every request goes through, in one step rather than a router layer each: its id (the caller's
  // or a new UUID), its log line, its duration metric and the refusal of input no route can store.
  // No body parser here: each route reads its JSON body with its own limit (http/body.ts), a small
  // one before anything else, a bulk load's only after authentication (http/register-routes.ts).
  app.use((req, res, next) => {
    const given = req.headers['x-request-id'];
    const id = typeof given === 'string' && given.length <= 128 ? given : randomUUID();
    (req as { id?: string }).id = id;
    res.setHeader('X-Request-Id', id);
    logRequest?.(req, res);
    timeRequest(req, res);
    const refused = unstorableInput(req);
    if (refused) next(refused);
    else if (!hot?.(req, res, next)) next();
  });
  return app;
}

const SCAN_PATH = `${API_PREFIX}/sort-box-items`;
const CONFIRM_PATH = /^\/api\/v1\/sort-box-items\/([0-9]{1,10})\/confirm$/;
const WALL_PATH = /^\/api\/v1\/walls\/([0-9]{1,10})$/;

/**
 * The scan, the confirm and a hub's read of its wall (`GET /walls/{id}`, every few seconds from every
 * hub), matched here on their exact paths and run by their route's own handler
 * (http/register-routes.ts): no router layer, no path-to-regexp walk over the /api/v1 routes before
 * them. Their metric carries the same route template as through the router.
 */
function hotRoutes(runners: Map<string, RouteRunner>): HotRoutes {
  const scan = runners.get('CreateSortBoxItem')!;
  const confirm = runners.get('ConfirmSortBoxItem')!;
  const wall = runners.get('GetWall')!;
  return (req, res, next) => {
    const url = req.url;
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    if (req.method === 'POST' && path === SCAN_PATH) {
      setMetricsRoute(req, SCAN_PATH);
      req.params = {};
      scan(req, res, next).catch(next);
      return true;
    }
    if (req.method === 'GET') {
      const m = WALL_PATH.exec(path);
      if (!m) return false;
      req.params = { id: m[1]! };
      setMetricsRoute(req, `${API_PREFIX}/walls/:id`);
      wall(req, res, next).catch(next);
      return true;
    }
    if (req.method === 'PATCH') {
      const m = CONFIRM_PATH.exec(path);
      if (!m) return false;
      req.params = { id: m[1]! };
      setMetricsRoute(req, `${API_PREFIX}/sort-box-items/:id/confirm`);
      confirm(req, res, next).catch(next);
      return true;
    }
    return false;
  };
}

/** Mounts one group of route definitions under its prefix ('' for the root routes). */
function mountRoutes(app: Express, prefix: string, routes: RouteDef[], deps: ApiDeps): void {
  const router = Router();
  registerRoutes(router, routes, deps);
  app.use(prefix || '/', router);
}

/** The last handlers of every app: 404 for what no route took, then every error as problem+json. */
function answerErrors(app: Express, deps: ApiDeps): Express {
  app.use(notFoundHandler);
  app.use(errorHandler(deps.log));
  return app;
}

/** The catalog routes alone, for running the catalog on its own port (CATALOG_PORT). */
export function createCatalogApp(deps: ApiDeps): Express {
  const app = baseApp(deps);
  mountRoutes(app, CATALOG_PREFIX, ROUTE_GROUPS.catalog, deps);
  return answerErrors(app, deps);
}

/** The whole HTTP API: health, token, /api/v1 and (unless it has its own port) the catalog. */
export function createApp(deps: ApiDeps, opts: { withCatalog?: boolean } = {}): Express {
  // The /api/v1 routes are made first: the scan's and the confirm's handlers are also run before the router.
  const apiRouter = Router();
  const apiRunners = registerRoutes(apiRouter, ROUTE_GROUPS.api, deps);
  const app = baseApp(deps, hotRoutes(apiRunners));

  // From memory: the process is alive and its event loop turns.
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  // Cached and bounded (http/readiness.ts): a flood of probes is one check a second, never a hang.
  app.get('/readyz', async (_req, res, next) => {
    const answer = readyzAnswer(await deps.readiness());
    if (answer.ok) res.json(answer.body);
    else next(answer.error);
  });
  // A scraper with METRICS_TOKEN, or this machine's loopback: never the floor network (http/metrics-access.ts).
  app.get('/metrics', metricsAccess(deps.config.METRICS_TOKEN), async (_req, res) => {
    res.type(metricsRegistry.contentType).send(await metricsRegistry.metrics());
  });

  // The document and the Swagger UI are built on their first request, not at every process start.
  let doc: Record<string, unknown> | undefined;
  const document = () => (doc ??= openApiDocument());
  app.get(`${API_PREFIX}/openapi.json`, (_req, res) => {
    res.json(document());
  });
  let docsUi: Promise<RequestHandler> | undefined;
  app.use(`${API_PREFIX}/docs`, (req, res, next) => {
    docsUi ??= import('swagger-ui-express').then(({ default: swaggerUi }) => {
      const router = Router();
      router.use(swaggerUi.serve, swaggerUi.setup(document(), { customSiteTitle: 'Sorting wall API' }));
      return router as RequestHandler;
    });
    docsUi.then((ui) => ui(req, res, next), next);
  });

  // The operations first: a device's request then passes no router of the pages or of the root routes
  // (their paths and /api/v1's do not meet, so the order decides nothing else).
  app.use(API_PREFIX, apiRouter);

  // The hub and sorter pages (services/hub), outside /api/v1: they are for people, not programs.
  app.use(pagesRouter());

  mountRoutes(app, '', ROUTE_GROUPS.root, deps);
  // After the root routes: POST /admin/queues/session (there) hands out the cookie this checks.
  app.use(QUEUE_DASHBOARD_PATH, ...queueDashboard(deps));

  if (opts.withCatalog ?? true) mountRoutes(app, CATALOG_PREFIX, ROUTE_GROUPS.catalog, deps);
  return answerErrors(app, deps);
}
