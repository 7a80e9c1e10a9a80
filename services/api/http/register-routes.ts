import type { NextFunction, Request, Response, Router } from 'express';
import type { EntityManager } from '@mikro-orm/postgresql';
import { OrmSql } from '../../../shared/db/orm-sql';
import { AppError } from '../../../shared/errors/app-error';
import type { AuthClaims } from '../../../shared/auth/jwt';
import { hasAnyRole, leastOf, rolesFrom } from '../../../shared/auth/roles';
import { checkToken, requestToken } from './authenticate';
import type { ApiDeps } from '../api-deps';
import { sortingAllowed } from '../use-cases/settings/sorting-subscription.use-case';
import type { Role } from '../../../shared/db/entities/employee.entity';
import type { RouteDef } from './route';
import { SMALL_BODY_LIMIT, readBody } from './body';
import { parseInput, rejectUnstorableBody } from './validation';
import { setMetricsRoute } from './metrics';

export function expressPath(openApiPath: string): string {
  return openApiPath.replace(/\{([^}]+)\}/g, ':$1');
}

/** Authenticates a request; every operation but the public ones needs a valid bearer token. */
export async function authenticate(req: Request, deps: ApiDeps, allowQueryToken = false): Promise<AuthClaims> {
  const token = requestToken(req, allowQueryToken);
  if (!token) {
    throw new AppError('unauthorized', 'This operation needs a bearer token: get one from POST /token and send it as "Authorization: Bearer <token>".', {
      headers: { 'WWW-Authenticate': 'Bearer' },
    });
  }
  const check = await checkToken(token, deps);
  if (!check.ok) {
    throw new AppError('unauthorized', check.detail, { headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' } });
  }
  return check.claims;
}

const ARTICLE: Record<Role, string> = { Admin: 'an Admin', Manager: 'a Manager', Sorter: 'a Sorter' };

/**
 * The verbs an operation's words may start with. A summary that starts otherwise names what it
 * answers ("Sorting figures of a range"): its action is to read it (GET) or to request it; a question
 * ("whether ...") is checked.
 */
const VERBS = new Set([
  'add', 'attach', 'cancel', 'change', 'check', 'choose', 'confirm', 'connect', 'create', 'delete', 'detach', 'disable', 'enable',
  'end', 'get', 'import', 'list', 'mark', 'move', 'open', 'print', 'read', 'record', 'redeem', 'register', 'release', 'remove', 'renew',
  'replace', 'scan', 'see', 'send', 'set', 'show', 'start', 'stop', 'subscribe', 'swap', 'update', 'upload', 'validate',
]);

/** What the operation does, in words starting with a verb: its `action`, else its summary up to the first colon. */
export function actionOf(route: RouteDef): string {
  const head = route.action ?? route.summary.split(/[:;]|\s\(/)[0]!.trim();
  // A capital that starts a word (not an acronym such as ZPL) is lowered: the words follow "may".
  const text = /^[A-Z](?![A-Z])/.test(head) ? head[0]!.toLowerCase() + head.slice(1) : head;
  const first = text.split(/\s/)[0]!;
  if (VERBS.has(first)) return text;
  if (first === 'whether') return `check ${text}`;
  return `${route.method === 'get' ? 'read' : 'request'} ${text}`;
}

/** "Only a Manager or an Admin may create a wall; you are signed in as a Sorter." */
export function forbiddenDetail(route: RouteDef, roles: readonly Role[]): string {
  // The least role the route lets in names everyone it lets in (roles nest).
  const needed = route.access as readonly Role[];
  const who = rolesFrom(leastOf(needed)!).map((r) => ARTICLE[r]);
  const you = roles.length ? roles.map((r) => ARTICLE[r]).join(' and ') : 'an employee without a role';
  return `Only ${who.length > 1 ? `${who.slice(0, -1).join(', ')} or ${who.at(-1)}` : who[0]} may ${actionOf(route)}; you are signed in as ${you}. Ask an Admin for the role if you need it.`;
}

/**
 * A handler's answer as JSON. A GET (or HEAD) goes through Express's res.json: its ETag lets a client
 * revalidate (304) what it polls. Any other method's answer is never revalidated, so it is written as
 * res.json would write it but without the ETag, a hash of every scan's and confirm's answer for nothing.
 */
function sendJson(req: Request, res: Response, status: number, value: unknown): void {
  res.status(status);
  if (req.method === 'GET' || req.method === 'HEAD' || res.getHeader('Content-Type') !== undefined) {
    res.json(value);
    return;
  }
  const text = JSON.stringify(value);
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

/**
 * A route's handler, as the router runs it; app.ts's hot routes match their paths themselves and set
 * `req.params` as the router would before they run it.
 */
export type RouteRunner = (req: Request, res: Response, next: NextFunction) => Promise<void>;

/**
 * Mounts each route definition: its body (a small one: before anything else), admission of its command,
 * authenticate, authorize, its body (a large one: only now), validate, then call the handler. Returns
 * each route's handler by its operationId.
 */

export function registerRoutes(router: Router, routes: RouteDef[], deps: ApiDeps): Map<string, RouteRunner> {
  const runners = new Map<string, RouteRunner>();
  // Plain SQL on the ORM's pool (what OrmSql.of(em) gives, without a fork behind it), made on the first request.
  let onPool: { sql: OrmSql; preparedSql: OrmSql } | undefined;
  const pool = () => (onPool ??= { sql: OrmSql.of(deps.orm.em, false), preparedSql: OrmSql.of(deps.orm.em, deps.config.DATABASE_PREPARED_STATEMENTS) });
  for (const route of routes) {
    const bodyLimit = route.bodyLimit ?? SMALL_BODY_LIMIT;
    const readBodyFirst = bodyLimit <= SMALL_BODY_LIMIT;
    // Before its answer leaves, a write drops what the wall view caches hold (route.ts, leavesWallViews).
    const changesWallViews = route.method !== 'get' && !route.command && !route.leavesWallViews;
    const run: RouteRunner = async (req, res, next) => {
      try {
        if (readBodyFirst) await readBody(req, res, bodyLimit, Boolean(route.body), route.acceptsCsv);
        // Under overload a command's request is refused before the rest of what it would cost the API.
        const refused = route.command ? deps.commands.refusal?.(route.command) : null;
        if (refused) throw refused;
        const auth = route.access === 'public' ? (undefined as unknown as AuthClaims) : await authenticate(req, deps, route.allowQueryToken);
        if (Array.isArray(route.access) && !hasAnyRole(auth.roles, route.access)) {
          throw new AppError('forbidden', forbiddenDetail(route, auth.roles));
        }
        // A bulk load's megabytes are read for someone allowed to send them, not for anyone.
        if (!readBodyFirst) await readBody(req, res, bodyLimit, Boolean(route.body), route.acceptsCsv);
        rejectUnstorableBody(req.body);
        const params = route.params ? parseInput(route.params, req.params, 'path') : {};
        const query = route.query ? parseInput(route.query, req.query, 'query') : {};
        const rawBody = req.body;
        // Express 5 leaves req.body undefined when no body (or no JSON content type) was sent.
        const bodyMissing = rawBody === undefined;
        // A CSV text goes to the handler as read: `body` describes the JSON form.
        const body = route.body
          ? route.bodyOptional && bodyMissing
            ? undefined
            : route.acceptsCsv && typeof rawBody === 'string'
              ? rawBody
              : parseInput(route.body, rawBody, 'body')
          : undefined;
        const { sql, preparedSql } = pool();
        if (route.requiresSubscription) {
          if (!(await sortingAllowed(sql, auth.clientId))) {
            throw new AppError('subscription-disabled', 'The sorting subscription of your company is disabled. An Admin can enable it (free of charge) in the hub.');
          }
        }
        if (route.successor) {
          res.setHeader('Deprecation', 'true');
          res.setHeader('Link', `<${route.successor({ req, params, query })}>; rel="successor-version"`);
        }
        let em: EntityManager | undefined;
        let result: unknown;
        try {
          result = await route.handler({
            req,
            res,
            params,
            query,
            body,
            auth,
            // Forked when the handler first reads it: a fork is a unit of work, an identity map and their
            // garbage on every request, which the routes that only run plain SQL do without.
            get em() {
              return (em ??= deps.orm.em.fork());
            },
            sql,
            preparedSql,
            deps,
          });
        } finally {
          // Once the handler ran, failed or not (a failed write may have written part of what it meant
          // to); a request refused before it (not signed in, invalid) wrote nothing.
          if (changesWallViews) await deps.wallViews?.changedOutside();
        }
        if (res.headersSent) return;
        if (result === undefined) {
          res.status(200).end();
        } else {
          sendJson(req, res, route.successStatus ?? 200, result);
        }
      } catch (err) {
        // The error handler answers after the router has given back its mount path (req.baseUrl): the
        // metric's route template is taken here, whole.
        if (req.route) setMetricsRoute(req, `${req.baseUrl}${req.route.path}`);
        next(err);
      }
    };
    router[route.method](expressPath(route.path), (req: Request, res: Response, next: NextFunction) => run(req, res, next));
    runners.set(route.operationId, run);
  }
  return runners;
}
