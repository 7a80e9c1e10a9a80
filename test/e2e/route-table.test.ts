import jwt from 'jsonwebtoken';
import request from 'supertest';
import { API_PREFIX, CATALOG_PREFIX, ROUTE_GROUPS } from '../../services/api/app';
import type { RouteDef } from '../../services/api/http/route';
import { signAccessToken } from '../../shared/auth/jwt';
import { startTestApi, type TestApi } from '../support/test-api';

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
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi();
  });
  afterAll(async () => {
    await api.close();
  });

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
