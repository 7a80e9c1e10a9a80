import type { RequestHandler, Response } from 'express';
import { signAccessToken, verifyAccessToken, type AuthClaims } from '../../../shared/auth/jwt';
import { AppError } from '../../../shared/errors/app-error';
import { redactSecrets } from '../../../shared/logging/redact';
import type { ApiDeps } from '../api-deps';
import { checkClaims } from './authenticate';

/**
 * The BullMQ dashboard (bull-board) at /admin/queues, for operators: it shows and can retry or remove
 * the jobs of every client, so only the Admins named in QUEUE_DASHBOARD_ADMINS may open it.
 *
 * A browser page cannot send a bearer header, so the page that holds the token (the hub) first calls
 * POST /admin/queues/session with it and gets a cookie: HttpOnly (no script reads it), SameSite=Strict
 * (no other site's page can make the browser send it, so the dashboard's own retry/clean calls are not
 * forgeable), Path=/admin/queues (sent nowhere else) and short-lived. Its token is signed with a key
 * derived from JWT_SECRET, so it is no bearer token for the API even if it leaked.
 */
export const QUEUE_DASHBOARD_PATH = '/admin/queues';
export const DASHBOARD_COOKIE = 'queue_dashboard';
export const DASHBOARD_SESSION_SECONDS = 15 * 60;

export const dashboardSecret = (jwtSecret: string) => `${jwtSecret}\u0000queue-dashboard`;

/** An Admin named in QUEUE_DASHBOARD_ADMINS (the same test as assertOperator, as a boolean). */
export function mayOpenQueueDashboard(auth: AuthClaims, deps: ApiDeps): boolean {
  return auth.roles.includes('Admin') && deps.config.QUEUE_DASHBOARD_ADMINS.includes(auth.email.toLowerCase());
}

export function assertOperator(auth: AuthClaims, deps: ApiDeps): void {
  if (!auth.roles.includes('Admin')) throw new AppError('forbidden', 'The queue dashboard is for Admins.');
  if (!deps.config.QUEUE_DASHBOARD_ADMINS.includes(auth.email.toLowerCase())) {
    throw new AppError('forbidden', 'The queue dashboard shows every client\'s jobs: only the Admins listed in the QUEUE_DASHBOARD_ADMINS setting may open it.');
  }
}

export function setDashboardCookie(res: Response, value: string, maxAge: number, secure: boolean): void {
  const attrs = [`${DASHBOARD_COOKIE}=${value}`, `Path=${QUEUE_DASHBOARD_PATH}`, `Max-Age=${maxAge}`, 'HttpOnly', 'SameSite=Strict'];
  if (secure) attrs.push('Secure');
  res.setHeader('Set-Cookie', attrs.join('; '));
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return v.join('=');
  }
  return undefined;
}

/** POST /admin/queues/session: an operator's short-lived dashboard cookie, and where to go with it. */
export function openQueueDashboard(auth: AuthClaims, deps: ApiDeps, res: Response, secure: boolean): { url: string; expiresIn: number } {
  assertOperator(auth, deps);
  const token = signAccessToken(auth, dashboardSecret(deps.config.JWT_SECRET), DASHBOARD_SESSION_SECONDS);
  setDashboardCookie(res, token, DASHBOARD_SESSION_SECONDS, secure);
  return { url: `${QUEUE_DASHBOARD_PATH}`, expiresIn: DASHBOARD_SESSION_SECONDS };
}

const signInFirst = () =>
  new AppError('unauthorized', `Open the queue dashboard from the hub page (/hub, "Queues") as an operator Admin, or POST ${QUEUE_DASHBOARD_PATH}/session with your bearer token first.`);

/** The dashboard behind its cookie; bull-board (and its Redis connection) is built on the first admitted request. */
export function queueDashboard(deps: ApiDeps): RequestHandler[] {
  const guard: RequestHandler = async (req, res, next) => {
    try {
      const token = cookieValue(req.headers.cookie, DASHBOARD_COOKIE);
      const claims = token ? verifyAccessToken(token, dashboardSecret(deps.config.JWT_SECRET)) : null;
      if (!claims) throw signInFirst();
      // The cookie is held against the employee as it stands, like every bearer token (docs/api.md §2,
      // "Token lifetime"): a deactivated or demoted Admin loses the dashboard too, not 15 minutes later.
      const check = await checkClaims(claims, deps);
      if (!check.ok) throw new AppError('unauthorized', check.detail);
      assertOperator(check.claims, deps);
    } catch (err) {
      return next(err);
    }
    res.setHeader('X-Frame-Options', 'DENY');
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.setHeader('Cache-Control', 'no-store');
    next();
  };
  // bull-board (its code, its UI and its Redis connections) loads on the first admitted request: most
  // API processes never serve the dashboard, and its modules cost start-up time and memory.
  let board: Promise<RequestHandler> | null = null;
  const dashboard: RequestHandler = (req, res, next) => {
    board ??= buildBoard(deps);
    board.then((handler) => handler(req, res, next), next);
  };
  return [guard, dashboard];
}

async function buildBoard(deps: ApiDeps): Promise<RequestHandler> {
  const [{ createBullBoard }, { BullMQAdapter }, { ExpressAdapter }] = await Promise.all([
    import('@bull-board/api'),
    import('@bull-board/api/bullMQAdapter'),
    import('@bull-board/express'),
  ]);
  const adapter = new ExpressAdapter();
  adapter.setBasePath(QUEUE_DASHBOARD_PATH);
  // A queue on the dashboard, its jobs' data and return values shown without secrets (a session token, a Session record).
  const redactedAdapter = (queue: ConstructorParameters<typeof BullMQAdapter>[0]) => {
    const queueAdapter = new BullMQAdapter(queue);
    queueAdapter.setFormatter('data', (data) => redactSecrets(data));
    queueAdapter.setFormatter('returnValue', (value) => redactSecrets(value));
    return queueAdapter;
  };
  createBullBoard({
    queues: deps.queues.queues().map(redactedAdapter),
    serverAdapter: adapter,
    options: { uiConfig: { boardTitle: 'Sorting wall queues' } },
  });
  return adapter.getRouter() as RequestHandler;
}
