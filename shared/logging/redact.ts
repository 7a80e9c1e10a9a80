/*
 * The one redaction of secrets (docs/operations.md, "Logs"): tokens, PINs, passwords, session tokens and
 * webhook secrets never reach a log line, a problem's `instance`, the queue dashboard's job data or a
 * metric label. Everything that logs or echoes a request or an error passes it through here.
 */

/** What a secret value is replaced with. */
export const REDACTED = '[redacted]';

// Names (of query parameters, headers, JSON fields) whose values are secrets, compared in lower case
// without `-`, `_` and a trailing `[]`: access_token, token, pin, password, secret, sessionToken,
// Authorization, X-Pin, Cookie, and any name ending in password, secret or token (adminPassword,
// webhookSecret, refresh_token).
const SECRET_NAMES = new Set(['pin', 'xpin', 'authorization', 'proxyauthorization', 'cookie', 'setcookie']);
const SECRET_SUFFIX = /(?:password|secret|token)$/;

export function isSecretName(name: string): boolean {
  const n = name.toLowerCase().replace(/\[\]$/, '').replace(/[-_\s]/g, '');
  return SECRET_NAMES.has(n) || SECRET_SUFFIX.test(n);
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

// Path segments that are secrets: the session token of /walls/{id}/sessions/{token} (renew, stop).
const SECRET_PATH_SEGMENTS = [/(\/walls\/[^/?#\s]*\/sessions\/)([^/?#\s]+)/gi];

function redactPath(path: string): string {
  return SECRET_PATH_SEGMENTS.reduce((p, re) => p.replace(re, (_m, before: string) => `${before}${REDACTED}`), path);
}

function redactQuery(query: string): string {
  return query
    .split(/([&;])/)
    .map((part) => {
      const eq = part.indexOf('=');
      const name = eq < 0 ? part : part.slice(0, eq);
      return eq >= 0 && isSecretName(decoded(name)) ? `${name}=${REDACTED}` : part;
    })
    .join('');
}

/** A request URL (path and query) with secret path segments and the values of secret query parameters replaced. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return redactPath(url);
  return `${redactPath(url.slice(0, q))}?${redactQuery(url.slice(q + 1))}`;
}

// In free text (an error message, a URL inside it): `name=value` pairs, `"name": "value"` JSON fields,
// bearer credentials and JWTs.
const TEXT_PAIR = /([A-Za-z0-9_\-.%[\]]+)=([^&;\s#"'<>,)]*)/g;
const TEXT_JSON_FIELD = /"([A-Za-z0-9_\-[\]]+)"\s*:\s*"((?:[^"\\]|\\.)*)"/g;
const BEARER = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi;
const JWT = /\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g;

/** Free text with every secret this module recognises replaced. */
export function redactText(text: string): string {
  return redactPath(text)
    .replace(TEXT_PAIR, (m, name: string) => (isSecretName(decoded(name)) ? `${name}=${REDACTED}` : m))
    .replace(TEXT_JSON_FIELD, (m, name: string) => (isSecretName(name) ? `"${name}":"${REDACTED}"` : m))
    .replace(BEARER, (_m, scheme: string) => `${scheme} ${REDACTED}`)
    .replace(JWT, REDACTED);
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object') return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/**
 * A copy of a value with the secrets in it replaced: the value of every field with a secret name
 * (headers, a body, job data), and secrets in every string (redactText). Only plain objects and arrays
 * are walked (a request, a socket or an Error is left to its serializer); depth is bounded.
 */
export function redactSecrets<T>(value: T, depth = 0): T {
  if (typeof value === 'string') return redactText(value) as T;
  if (depth > 8) return value;
  if (Array.isArray(value)) return value.map((v) => redactSecrets(v, depth + 1)) as T;
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = isSecretName(k) && v !== null && v !== undefined && v !== '' ? REDACTED : redactSecrets(v, depth + 1);
  }
  return out as T;
}
