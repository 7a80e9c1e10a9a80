import { createSecretKey, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import type { Role } from '../db/entities/employee.entity';
import { TtlCache } from '../cache/ttl-cache';

/** What a bearer token says about its holder. Everything a request may touch is scoped by clientId. */
export interface AuthClaims {
  employeeId: number;
  clientId: number;
  roles: Role[];
  email: string;
  /** The employee's credentials version when the token was issued; an older one than today's is refused. */
  credentialsVersion: number;
}

interface TokenPayload {
  sub: string;
  cid: number;
  roles: Role[];
  email: string;
  ver?: number;
  exp?: number;
}

// jsonwebtoken turns a string secret into a key on every call, first trying (and failing) to read
// it as a public key: about a millisecond per request. A KeyObject made once skips all of that.
const keys = new Map<string, KeyObject>();
function keyFor(secret: string): KeyObject {
  let key = keys.get(secret);
  if (!key) {
    key = createSecretKey(Buffer.from(secret, 'utf8'));
    keys.set(secret, key);
  }
  return key;
}

// Verified tokens, until they expire: a sorter sends the same token with every scan.
// Each entry lives until its token expires.
const verified = new TtlCache<string, AuthClaims>({ max: 10_000 });

// JWT_SECRET's minimum: an empty key (JWT_SECRET unset and not yet read from the database) signs nothing and verifies nothing.
export const MIN_JWT_SECRET_LENGTH = 16;

export function signAccessToken(claims: AuthClaims, secret: string, ttlSeconds: number): string {
  if (secret.length < MIN_JWT_SECRET_LENGTH) throw new Error('no signing key: JWT_SECRET is unset and the service\'s own key was not read');
  const payload = { sub: String(claims.employeeId), cid: claims.clientId, roles: claims.roles, email: claims.email, ver: claims.credentialsVersion };
  return jwt.sign(payload, keyFor(secret), { algorithm: 'HS256', expiresIn: ttlSeconds, issuer: 'sorting-wall' });
}

/**
 * Returns the claims of a valid token, or null for a missing, forged or expired one, and for one
 * without an expiry (a token that never expires is never accepted). Whether the employee may still
 * use it (active, same credentials) is checked by the API on each request (services/api/http/authenticate.ts).
 */
export function verifyAccessToken(token: string, secret: string): AuthClaims | null {
  if (secret.length < MIN_JWT_SECRET_LENGTH) return null;
  const cacheKey = `${secret.length}:${token}`;
  const hit = verified.get(cacheKey);
  if (hit) return hit;
  try {
    const p = jwt.verify(token, keyFor(secret), { algorithms: ['HS256'], issuer: 'sorting-wall' }) as unknown as TokenPayload;
    const employeeId = Number(p.sub);
    if (!Number.isInteger(employeeId) || !Number.isInteger(p.cid) || !Array.isArray(p.roles)) return null;
    if (typeof p.exp !== 'number' || !Number.isFinite(p.exp)) return null;
    const ver = p.ver ?? 0;
    if (!Number.isInteger(ver)) return null;
    const claims: AuthClaims = { employeeId, clientId: p.cid, roles: p.roles, email: p.email, credentialsVersion: ver };
    verified.set(cacheKey, claims, p.exp * 1000 - Date.now());
    return claims;
  } catch {
    return null;
  }
}
