import { verifyAccessToken, type AuthClaims } from '../../../shared/auth/jwt';
import type { ApiDeps } from '../api-deps';

export type TokenCheck = { ok: true; claims: AuthClaims } | { ok: false; detail: string };

/**
 * A bearer token is accepted when it is genuine, unexpired, has an expiry, and its employee is still
 * active with the same credentials (deactivation and password changes end it). The roles are the
 * employee's current ones, not those the token was issued with: a demoted Admin is one at once.
 */
export async function checkToken(token: string, deps: Pick<ApiDeps, 'config' | 'access'>): Promise<TokenCheck> {
  const claims = verifyAccessToken(token, deps.config.JWT_SECRET);
  if (!claims) return { ok: false, detail: 'The bearer token is invalid or has expired; sign in again with POST /token.' };
  const now = await deps.access.current(claims.employeeId);
  if (!now || now.clientId !== claims.clientId) return { ok: false, detail: 'The bearer token names an employee that does not exist; sign in again with POST /token.' };
  if (!now.isActive) return { ok: false, detail: 'This employee account is deactivated; ask an Admin to reactivate it.' };
  if (now.credentialsVersion !== claims.credentialsVersion) {
    return { ok: false, detail: "The employee's password or access changed after this token was issued; sign in again with POST /token." };
  }
  return { ok: true, claims: { ...claims, roles: now.roles } };
}

/** The claims of an acceptable token, or null. */
export async function authenticateToken(token: string, deps: Pick<ApiDeps, 'config' | 'access'>): Promise<AuthClaims | null> {
  const check = await checkToken(token, deps);
  return check.ok ? check.claims : null;
}
