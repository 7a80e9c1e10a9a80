import type { IncomingHttpHeaders } from 'node:http';
import type { Request } from 'express';
import { verifyAccessToken, type AuthClaims } from '../../../shared/auth/jwt';
import type { ApiDeps } from '../api-deps';

export type TokenCheck = { ok: true; claims: AuthClaims } | { ok: false; detail: string };

/**
 * A bearer token is accepted when it is genuine, unexpired, has an expiry, and its employee is still
 * active with the same credentials (deactivation and password changes end it). The roles are the
 * employee's current ones, not those the token was issued with: a demoted Admin is one at once.
 */
export function checkToken(token: string, deps: Pick<ApiDeps, 'config' | 'access'>): Promise<TokenCheck> {
  return checkClaims(verifyAccessToken(token, deps.config.JWT_SECRET), deps);
}

/**
 * The second half of checkToken, for claims verified with another key (the queue dashboard's cookie):
 * null claims (forged, expired) are refused, the others are held against the employee as it stands.
 */
export async function checkClaims(claims: AuthClaims | null, deps: Pick<ApiDeps, 'access'>): Promise<TokenCheck> {
  if (!claims) return { ok: false, detail: 'The bearer token is invalid or has expired; sign in again with POST /token.' };
  const now = await deps.access.current(claims.employeeId);
  if (!now || now.clientId !== claims.clientId) return { ok: false, detail: 'The bearer token names an employee that does not exist; sign in again with POST /token.' };
  if (!now.isActive) return { ok: false, detail: 'This employee account is deactivated; ask an Admin to reactivate it.' };
  if (now.credentialsVersion !== claims.credentialsVersion) {
    return { ok: false, detail: "The employee's password or access changed after this token was issued; sign in again with POST /token." };
  }
  return { ok: true, claims: { ...claims, roles: now.roles } };
}

/**
 * For long-lived streams (SSE, WebSocket), checked at each heartbeat: false once the token would be
 * refused (the employee was deactivated, its password changed, the token expired). A check that
 * cannot run (PostgreSQL down) keeps the stream: an outage is not a revocation.
 */
export function stillAccepted(token: string, deps: Pick<ApiDeps, 'config' | 'access'>): Promise<boolean> {
  return checkToken(token, deps).then(
    (c) => c.ok,
    () => true,
  );
}

/** The token a request authenticates with: the Authorization header, else (where allowed) `?access_token=`. */
export function requestToken(req: Request, allowQueryToken = false): string | undefined {
  return bearerToken(req.headers) ?? (allowQueryToken && typeof req.query.access_token === 'string' ? req.query.access_token : undefined);
}

/** The token of an `Authorization: Bearer …` header (HTTP requests and WebSocket upgrades alike). */
export function bearerToken(headers: IncomingHttpHeaders): string | undefined {
  const header = headers.authorization;
  if (header) {
    const m = /^Bearer\s+(.+)$/i.exec(header);
    return m?.[1]?.trim();
  }
  return undefined;
}
