import jwt from 'jsonwebtoken';
import type { Role } from '../db/entities/employee.entity';

/** What a bearer token says about its holder. Everything a request may touch is scoped by clientId. */
export interface AuthClaims {
  employeeId: number;
  clientId: number;
  roles: Role[];
  email: string;
}

interface TokenPayload {
  sub: string;
  cid: number;
  roles: Role[];
  email: string;
}

export function signAccessToken(claims: AuthClaims, secret: string, ttlSeconds: number): string {
  const payload: TokenPayload = { sub: String(claims.employeeId), cid: claims.clientId, roles: claims.roles, email: claims.email };
  return jwt.sign(payload, secret, { algorithm: 'HS256', expiresIn: ttlSeconds, issuer: 'sorting-wall' });
}

/** Returns the claims of a valid token, or null for a missing, forged or expired one. */
export function verifyAccessToken(token: string, secret: string): AuthClaims | null {
  try {
    const p = jwt.verify(token, secret, { algorithms: ['HS256'], issuer: 'sorting-wall' }) as unknown as TokenPayload;
    const employeeId = Number(p.sub);
    if (!Number.isInteger(employeeId) || !Number.isInteger(p.cid) || !Array.isArray(p.roles)) return null;
    return { employeeId, clientId: p.cid, roles: p.roles, email: p.email };
  } catch {
    return null;
  }
}

export function hasAnyRole(claims: AuthClaims, roles: readonly Role[]): boolean {
  // Admin can do everything a Manager can, and a Manager everything a Sorter can.
  const implied = new Set<Role>(claims.roles);
  if (implied.has('Admin')) implied.add('Manager');
  if (implied.has('Manager')) implied.add('Sorter');
  return roles.some((r) => implied.has(r));
}
