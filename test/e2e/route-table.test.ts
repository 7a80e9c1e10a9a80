import jwt from 'jsonwebtoken';
import request from 'supertest';
import { API_PREFIX, CATALOG_PREFIX, ROUTE_GROUPS } from '../../services/api/app';
import type { RouteDef } from '../../services/api/http/route';
import { signAccessToken } from '../../shared/auth/jwt';
import { z } from 'zod';
import { addOrders, addProducts, addSlots, addWall, addWarehouse } from '../support/fixtures';
import { newTenant, startTestApi, useTestApi, type Tenant, type TestApi } from '../support/test-api';

// Walks the whole route table, so a route added later is covered without touching this file.

interface Mounted {
  route: RouteDef;
  url: string;
  name: string;
}

/** A value each path parameter accepts ('1' for ids, 'ABCDEF12' for crcs and tokens), so only the token decides. */
function sampleParam(route: RouteDef, name: string): string {
  const candidates = ['1', 'ABCDEF12'];
  if (!route.params) return candidates[0]!;
  for (const value of candidates) {
    const filled = Object.fromEntries([...route.path.matchAll(/\{([^}]+)\}/g)].map((m) => [m[1], m[1] === name ? value : '1']));
    const result = route.params.safeParse(filled);
    const issueOnThis = !result.success && result.error.issues.some((i) => i.path[0] === name);
    if (!issueOnThis) return value;
  }
  return candidates[1]!;
}

function mounted(): Mounted[] {
  const groups: [string, RouteDef[]][] = [
    ['', ROUTE_GROUPS.root],
    [API_PREFIX, ROUTE_GROUPS.api],
    [CATALOG_PREFIX, ROUTE_GROUPS.catalog],
  ];
  return groups.flatMap(([prefix, routes]) =>
    routes
      .filter((route) => route.access !== 'public')
      .map((route) => {
        const path = route.path.replace(/\{([^}]+)\}/g, (_m, name: string) => encodeURIComponent(sampleParam(route, name)));
        return { route, url: prefix + path, name: `${route.method.toUpperCase()} ${prefix}${route.path} (${route.operationId})` };
      }),
  );
}

const ROUTES = mounted();

function send(api: TestApi, r: Mounted, authorization?: string) {
  const req = request(api.app)[r.route.method](r.url);
  if (authorization) req.set('Authorization', authorization);
  return req;
}

function expectUnauthorized(res: request.Response): void {
  expect(res.status).toBe(401);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(res.body).toMatchObject({ status: 401, code: 'unauthorized', type: 'https://errors.sorting-wall.dev/unauthorized' });
  expect(res.body.detail).toEqual(expect.any(String));
}

describe('every non-public route refuses requests without a valid bearer token', () => {
  const api = useTestApi();

  it('has routes to check beyond the token endpoint', () => {
    expect(ROUTES.length).toBeGreaterThan(0);
    expect(ROUTE_GROUPS.root.some((r) => r.path === '/token' && r.access === 'public')).toBe(true);
  });

  it.each(ROUTES.map((r) => [r.name, r] as const))('%s: no token → 401 unauthorized', async (_name, r) => {
    const res = await send(api, r);
    expectUnauthorized(res);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
  });

  it.each(ROUTES.map((r) => [r.name, r] as const))('%s: garbage, forged or expired token → 401 unauthorized', async (_name, r) => {
    const claims = { employeeId: 1, clientId: 1, roles: ['Admin' as const], email: 'admin@example.com', credentialsVersion: 0 };
    const forged = signAccessToken(claims, 'some-other-secret-some-other-secret', 3600);
    const expired = jwt.sign(
      { sub: '1', cid: 1, roles: ['Admin'], email: 'admin@example.com', exp: Math.floor(Date.now() / 1000) - 60 },
      api.deps.config.JWT_SECRET,
      { algorithm: 'HS256', issuer: 'sorting-wall' },
    );
    for (const authorization of ['Bearer garbage', `Bearer ${forged}`, `Bearer ${expired}`, 'Basic YWRtaW46YWRtaW4=']) {
      expectUnauthorized(await send(api, r, authorization));
    }
  });
});

// ---- bad input: every route answers a 4xx problem, never a 5xx (docs/api.md §1, "Bad input and messages") ----

type JsonSchema = Record<string, any>;

const ALL_ROUTES: Mounted[] = (
  [
    ['', ROUTE_GROUPS.root],
    [API_PREFIX, ROUTE_GROUPS.api],
    [CATALOG_PREFIX, ROUTE_GROUPS.catalog],
  ] as [string, RouteDef[]][]
).flatMap(([prefix, routes]) =>
  routes.map((route) => ({ route, url: '', name: `${route.method.toUpperCase()} ${prefix}${route.path} (${route.operationId})`, prefix }) as Mounted & { prefix: string }),
);

function inputSchema(schema: z.ZodType): JsonSchema {
  return z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
}

const SAMPLE_TEXT = 'sample';
const STRING_CANDIDATES = ['ABCDEF12', 'A1B2', '2026-01', '2026-01-02', `whsec_${Buffer.alloc(32, 7).toString('base64')}`, 'https://example.com/hook'];

/** A value the JSON schema accepts, as far as a generic walk can tell (samples need not pass every refinement). */
function sampleOf(s: JsonSchema): unknown {
  if (s.const !== undefined) return s.const;
  if (s.enum) return s.enum[0];
  if (s.default !== undefined && s.type !== 'object' && s.type !== 'array') return s.default;
  const options = s.anyOf ?? s.oneOf;
  if (options) return sampleOf(options.find((o: JsonSchema) => o.type !== 'null') ?? options[0]);
  const type = Array.isArray(s.type) ? s.type.find((t: string) => t !== 'null') : s.type;
  switch (type) {
    case 'object':
      return Object.fromEntries(Object.entries(s.properties ?? {}).map(([k, v]) => [k, sampleOf(v as JsonSchema)]));
    case 'array':
      return Array.from({ length: Math.max(1, s.minItems ?? 1) }, () => sampleOf(s.items ?? { type: 'string' }));
    case 'integer':
    case 'number':
      return s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : 1);
    case 'boolean':
      return true;
    case 'null':
      return null;
    case 'string': {
      if (s.format === 'date-time') return '2026-01-02T03:04:05Z';
      if (s.format === 'date') return '2026-01-02';
      if (s.pattern) return STRING_CANDIDATES.find((c) => new RegExp(s.pattern).test(c)) ?? SAMPLE_TEXT;
      return SAMPLE_TEXT.padEnd(s.minLength ?? 0, 'x').slice(0, s.maxLength ?? 64);
    }
    default:
      return SAMPLE_TEXT;
  }
}

/** Paths of every string leaf of a sample, with whether its schema is a date, a date-time or a month. */
function stringLeaves(s: JsonSchema, value: unknown, path: (string | number)[] = []): { path: (string | number)[]; dateLike: boolean }[] {
  const options = s.anyOf ?? s.oneOf;
  if (options) {
    if (options.some(isDateLike)) return [{ path, dateLike: true }];
    const match = options.find((o: JsonSchema) => o.type !== 'null') ?? options[0];
    return stringLeaves(match, value, path);
  }
  if (typeof value === 'string') return [{ path, dateLike: isDateLike(s) }];
  if (Array.isArray(value)) return value.flatMap((v, i) => stringLeaves(s.items ?? {}, v, [...path, i]));
  if (value && typeof value === 'object') {
    return Object.entries(value).flatMap(([k, v]) => stringLeaves(s.properties?.[k] ?? {}, v, [...path, k]));
  }
  return [];
}

function isDateLike(s: JsonSchema): boolean {
  return s.format === 'date-time' || s.format === 'date' || (typeof s.pattern === 'string' && s.pattern.includes('\\d{4}'));
}

function setAt(value: unknown, path: (string | number)[], leaf: unknown): unknown {
  if (!path.length) return leaf;
  const copy: any = Array.isArray(value) ? [...value] : { ...(value as object) };
  copy[path[0]!] = setAt(copy[path[0]!], path.slice(1), leaf);
  return copy;
}

const BAD_TEXT = ['a\u0000b', '\u0000', '\uD800', 'x\uDC00y'];
const BAD_DATES = ['0000-01-01', '9999-12-31T23:59:59-14:00', '0000-12-31T23:59:59Z', '+010000-01-01T00:00:00Z', '0001-01-01T00:00:00+01:00'];
// Raw path segments: NUL, truncated and invalid UTF-8 sequences, an encoded lone surrogate.
const BAD_SEGMENTS = ['%00', 'a%00b', '%E0%A4%A', '%ED%A0%80', '%FF', '%'];
const BAD_QUERY_VALUES = ['%00', 'a%00b', '%ED%A0%80', '%E0%A4%A'];

interface BadRequest {
  what: string;
  method: RouteDef['method'];
  url: string;
  body?: unknown;
  /** true: must be refused (4xx); false: must only not be a 5xx. */
  refused: boolean;
}

function pathWith(r: Mounted & { prefix: string }, override?: [string, string]): string {
  return (
    r.prefix +
    r.route.path.replace(/\{([^}]+)\}/g, (_m, name: string) => (override && override[0] === name ? override[1] : encodeURIComponent(sampleParam(r.route, name))))
  );
}

function sampleQuery(route: RouteDef): Record<string, string> {
  if (!route.query) return {};
  const js = inputSchema(route.query);
  const out: Record<string, string> = {};
  for (const [k, s] of Object.entries<JsonSchema>(js.properties ?? {})) {
    if (!(js.required ?? []).includes(k) || k === 'access_token') continue;
    const v = sampleOf(s);
    out[k] = typeof v === 'string' ? v : String(v);
  }
  return out;
}

function badRequests(r: Mounted & { prefix: string }): BadRequest[] {
  const { route } = r;
  const out: BadRequest[] = [];
  const body = route.body ? sampleOf(inputSchema(route.body)) : undefined;
  const baseUrl = pathWith(r);
  const baseQuery = sampleQuery(route);
  const qs = (q: Record<string, string>) => Object.entries(q).map(([k, v]) => `${encodeURIComponent(k)}=${v}`).join('&');
  const withQuery = (url: string, q: Record<string, string>) => (Object.keys(q).length ? `${url}?${qs(q)}` : url);
  const encodedBase = Object.fromEntries(Object.entries(baseQuery).map(([k, v]) => [k, encodeURIComponent(v)]));

  for (const name of [...route.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!)) {
    for (const seg of BAD_SEGMENTS) {
      out.push({ what: `path ${name}=${seg}`, method: route.method, url: withQuery(pathWith(r, [name, seg]), encodedBase), body, refused: true });
    }
  }
  if (route.query) {
    const js = inputSchema(route.query);
    for (const [k, s] of Object.entries<JsonSchema>(js.properties ?? {})) {
      for (const v of BAD_QUERY_VALUES) {
        out.push({ what: `query ${k}=${v}`, method: route.method, url: withQuery(baseUrl, { ...encodedBase, [k]: v }), body, refused: v.includes('%00') });
      }
      if (isDateLike(s) || s.type === 'string') {
        for (const d of [...BAD_DATES, '9999-12', '0000-01']) {
          out.push({ what: `query ${k}=${d}`, method: route.method, url: withQuery(baseUrl, { ...encodedBase, [k]: encodeURIComponent(d) }), body, refused: isDateLike(s) && d !== '9999-12' });
        }
      }
    }
  }
  if (route.body) {
    const url = withQuery(baseUrl, encodedBase);
    for (const leaf of stringLeaves(inputSchema(route.body), body)) {
      const at = leaf.path.join('.') || 'body';
      for (const bad of BAD_TEXT) out.push({ what: `body ${at}=${JSON.stringify(bad)}`, method: route.method, url, body: setAt(body, leaf.path, bad), refused: true });
      if (leaf.dateLike) {
        for (const d of BAD_DATES) out.push({ what: `body ${at}=${d}`, method: route.method, url, body: setAt(body, leaf.path, d), refused: true });
      }
    }
    // A key is text too.
    if (body && typeof body === 'object' && !Array.isArray(body)) {
      out.push({ what: 'body key with NUL', method: route.method, url, body: { ...body, 'k\u0000': 1 }, refused: true });
    }
  }
  return out;
}

describe('bad input on every route: a 4xx problem, never a 5xx, nothing changed', () => {
  let api: TestApi;
  let tenant: Tenant;
  let auth: string;
  const tenantTables: string[] = [];

  async function snapshot(): Promise<Record<string, string>> {
    const em = api.runtime.orm.em.fork();
    const out: Record<string, string> = {};
    for (const table of tenantTables) {
      const [row] = (await em.execute(`select count(*)::int as n, md5(coalesce(string_agg(t::text, '|' order by t::text), '')) as h from "${table}" t where client_id = ?`, [
        tenant.clientId,
      ])) as { n: number; h: string }[];
      out[table] = `${row!.n}:${row!.h}`;
    }
    return out;
  }

  let before: Record<string, string>;
  beforeAll(async () => {
    api = await startTestApi();
    tenant = await newTenant(api, 'BadInput');
    auth = tenant.auth;
    const em = api.runtime.orm.em.fork();
    // Data the samples name (warehouse 1, product 'sample'), so a bad value reaches as deep as it can.
    await addWarehouse(em, tenant.clientId, { id: 1 });
    await addProducts(em, tenant.clientId, [{ sku: SAMPLE_TEXT }]);
    await addOrders(em, tenant.clientId, [{ id: 1, warehouseId: 1, items: [{ sku: SAMPLE_TEXT, qty: 2 }] }]);
    const wall = await addWall(em, tenant.clientId, { warehouseId: 1 });
    await addSlots(em, tenant.clientId, wall.id, 2);
    const tables = (await em.execute(
      `select table_name from information_schema.columns where table_schema = 'public' and column_name = 'client_id' order by table_name`,
    )) as { table_name: string }[];
    tenantTables.push(...tables.map((t) => t.table_name));
    before = await snapshot();
  });
  afterAll(async () => {
    await api.close();
  });

  it('walks every route of the table, the public ones included', () => {
    expect(ALL_ROUTES.length).toBeGreaterThan(20);
    expect(ALL_ROUTES.some((r) => r.route.path === '/token')).toBe(true);
    expect(ALL_ROUTES.filter((r) => r.route.params).length).toBeGreaterThan(5);
  });

  it.each(ALL_ROUTES.map((r) => [r.name, r as Mounted & { prefix: string }] as const))('%s', async (_name, r) => {
    const failures: string[] = [];
    // A stream that a tolerated value opens would never end; refused values answer at once. Streams
    // (server-sent events, WebSockets) are the routes that take the token in the query.
    const streams = r.route.responseContentType === 'text/event-stream' || r.route.allowQueryToken === true;
    for (const bad of badRequests(r).filter((b) => b.refused || !streams)) {
      const req = request(api.app)[bad.method](bad.url).set('Authorization', auth);
      const res = await (bad.body !== undefined ? req.send(bad.body as object) : req);
      const problem = /^application\/problem\+json/.test(res.headers['content-type'] ?? '');
      if (res.status >= 500 || (bad.refused && (res.status < 400 || !problem))) {
        failures.push(`${bad.what} → ${res.status} ${res.body?.code ?? ''} ${res.body?.detail ?? ''}`);
      } else if (res.status >= 400 && !problem) {
        failures.push(`${bad.what} → ${res.status} without problem+json`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('answers a body over the limit with 413 payload-too-large on every route with a body', async () => {
    // Over the largest limit of the table (the imports' 16 MB), so every route refuses it.
    const largest = Math.max(...ALL_ROUTES.map((r) => r.route.bodyLimit ?? 0));
    const huge = JSON.stringify({ padding: 'x'.repeat(largest + 1024 * 1024) });
    for (const r of ALL_ROUTES.filter((x) => x.route.body) as (Mounted & { prefix: string })[]) {
      const res = await request(api.app)[r.route.method](pathWith(r)).set('Authorization', auth).set('Content-Type', 'application/json').send(huge);
      expect({ route: r.name, status: res.status, code: res.body.code }).toEqual({ route: r.name, status: 413, code: 'payload-too-large' });
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    }
    // Each refused body's connection stays open, unread, a second after the answer (http/body.ts), and this client waits for its close.
  }, 120_000);

  it('changed nothing of the tenant', async () => {
    expect(await snapshot()).toEqual(before);
  });
});
