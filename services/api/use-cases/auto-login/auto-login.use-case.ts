import { createHash, randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AppConfig } from '../../../../shared/config/config';
import { Client, Employee } from '../../../../shared/db/entities';
import { emSql } from '../../../../shared/db/orm-sql';
import { AppError } from '../../../../shared/errors/app-error';
import { tokenAnswer, type TokenAnswer } from '../auth/create-token.use-case';
import { deleteExpiredTokens, insertToken, redeemToken } from './auto-login.queries';

/** The companion apps a link can point into, each with its APP_URL_* setting. */
export const AUTO_LOGIN_APPS = {
  'inventory-web-portal': 'APP_URL_INVENTORY_WEB_PORTAL',
  'sorting-hub': 'APP_URL_SORTING_HUB',
  'sorting-sorter': 'APP_URL_SORTING_SORTER',
  'inventory-lens': 'APP_URL_INVENTORY_LENS',
} as const satisfies Record<string, keyof AppConfig>;
export type AutoLoginApp = keyof typeof AUTO_LOGIN_APPS;

export const AUTO_LOGIN_TTL_SECONDS = 60;

const hashOf = (token: string) => createHash('sha256').update(token, 'utf8').digest();

/**
 * Why `url` is not a safe return path, or null. Only a path on the app's own origin is accepted:
 * one leading '/', not '//' (another host), no backslash (browsers read '\' as '/'), no control
 * characters or spaces (URL parsers drop tabs and newlines, turning '/\t/evil' into '//evil').
 */
export function returnUrlProblem(url: string): string | null {
  if (!url.startsWith('/')) return "must be a relative path beginning with '/' (no scheme or host)";
  if (url.startsWith('//')) return "must not begin with '//' (that names another host)";
  if (url.includes('\\')) return 'must not contain a backslash';
  if (/[\u0000-\u0020\u007f-\u009f]/.test(url)) return 'must not contain spaces or control characters';
  return null;
}

/** ConstructXxxAutoLoginLink: a link into the app for the caller's team, with a fresh single-use token. */
export async function createAutoLoginLink(
  em: EntityManager,
  config: AppConfig,
  caller: { clientId: number; employeeId: number },
  app: AutoLoginApp,
  team: string,
  url: string | undefined,
): Promise<string> {
  const returnUrl = url ?? '/';
  const problem = returnUrlProblem(returnUrl);
  if (problem) throw new AppError('validation-failed', `url ${problem}.`, { errors: [{ path: 'url', message: problem }] });
  const client = await em.findOne(Client, { id: caller.clientId });
  // Another company's team answers as an unknown one: team names are not disclosed.
  if (!client || client.team.toLowerCase() !== team.trim().toLowerCase()) {
    throw new AppError('not-found', `Your company has no team '${team}'; your team is the one in your own links.`);
  }
  const token = randomBytes(32).toString('base64url');
  const db = emSql(em);
  await deleteExpiredTokens(db, { employeeId: caller.employeeId });
  await insertToken(db, {
    tokenHash: hashOf(token),
    clientId: caller.clientId,
    employeeId: caller.employeeId,
    app,
    returnUrl,
    ttlSeconds: AUTO_LOGIN_TTL_SECONDS,
  });
  const base = config[AUTO_LOGIN_APPS[app]].replaceAll('{team}', encodeURIComponent(client.team)).replace(/\/+$/, '');
  return `${base}/auto-login?token=${token}&returnUrl=${encodeURIComponent(returnUrl)}`;
}

/**
 * POST /auto-login/redeem: one statement marks the token used, so of two racing redeems exactly one
 * gets a row back. Unknown, expired and used tokens are one answer (401): nothing to learn by probing.
 */
export async function redeemAutoLoginToken(em: EntityManager, config: AppConfig, token: string): Promise<TokenAnswer> {
  const [row] = await redeemToken(emSql(em), { tokenHash: hashOf(token) });
  const employee = row ? await em.findOne(Employee, { id: row.employee_id, clientId: row.client_id }) : null;
  if (!employee || !employee.isActive) {
    throw new AppError('unauthorized', 'This sign-in link is unknown, has expired (links last 60 s) or was used already; open a new link.');
  }
  return tokenAnswer(employee, config);
}
