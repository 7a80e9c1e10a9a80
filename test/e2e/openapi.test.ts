import SwaggerParser from '@apidevtools/swagger-parser';
import request from 'supertest';
import { API_PREFIX, CATALOG_PREFIX, ROUTE_GROUPS } from '../../services/api/app';
import type { RouteDef } from '../../services/api/http/route';
import { ERROR_CODES } from '../../shared/errors/error-codes';
import { useTestApi } from '../support/test-api';

type Operation = { operationId: string; responses: Record<string, unknown>; security?: unknown[] };
type OpenApiDoc = { openapi: string; paths: Record<string, Record<string, Operation>> };

function allRoutes(): { prefix: string; route: RouteDef }[] {
  return [
    ...ROUTE_GROUPS.root.map((route) => ({ prefix: '', route })),
    ...ROUTE_GROUPS.api.map((route) => ({ prefix: API_PREFIX, route })),
    ...ROUTE_GROUPS.catalog.map((route) => ({ prefix: CATALOG_PREFIX, route })),
  ];
}

describe('OpenAPI document, docs and operational endpoints', () => {
  const api = useTestApi();
  let doc: OpenApiDoc;
  beforeAll(async () => {
    const res = await request(api.app).get(`${API_PREFIX}/openapi.json`);
    expect(res.status).toBe(200);
    doc = res.body as OpenApiDoc;
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    expect(doc.openapi).toMatch(/^3\.1\./);
    // validate() dereferences in place: hand it a copy.
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeDefined();
  });

  it('lists every route of the route table with its operationId, and the operationIds are unique', () => {
    const routes = allRoutes();
    expect(routes.length).toBeGreaterThan(1);
    for (const { prefix, route } of routes) {
      const op = doc.paths[prefix + route.path]?.[route.method];
      expect({ route: `${route.method} ${prefix}${route.path}`, operationId: op?.operationId }).toEqual({
        route: `${route.method} ${prefix}${route.path}`,
        operationId: route.operationId,
      });
    }
    const ids = Object.values(doc.paths).flatMap((methods) => Object.values(methods).map((op) => op.operationId));
    expect(ids).toHaveLength(routes.length);
    const duplicates = ids.filter((id, i) => ids.indexOf(id) !== i);
    expect(duplicates).toEqual([]);
  });

  it('documents 401 on every protected operation and no security on the public ones', () => {
    for (const { prefix, route } of allRoutes()) {
      const op = doc.paths[prefix + route.path]![route.method]!;
      if (route.access === 'public') {
        expect({ operationId: route.operationId, security: op.security }).toEqual({ operationId: route.operationId, security: [] });
      } else {
        expect({ operationId: route.operationId, has401: '401' in op.responses }).toEqual({ operationId: route.operationId, has401: true });
      }
      for (const code of route.errors ?? []) {
        const status = String(ERROR_CODES[code as keyof typeof ERROR_CODES].status);
        expect({ operationId: route.operationId, code, documented: status in op.responses }).toEqual({
          operationId: route.operationId,
          code,
          documented: true,
        });
      }
    }
  });

  it('serves the Swagger UI at /api/v1/docs', async () => {
    const res = await request(api.app).get(`${API_PREFIX}/docs/`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.text).toMatch(/swagger-ui/i);
    const bare = await request(api.app).get(`${API_PREFIX}/docs`);
    expect([200, 301, 302]).toContain(bare.status);
  });

  it('answers /healthz, /readyz with its checks, and /metrics with the request histogram', async () => {
    const health = await request(api.app).get('/healthz');
    expect(health.status).toBe(200);
    expect(health.body).toEqual({ status: 'ok' });

    const ready = await request(api.app).get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({ status: 'ready', checks: { postgres: true, redis: true } });
    expect(Object.values(ready.body.checks).every((ok) => ok === true)).toBe(true);

    const metrics = await request(api.app).get('/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.headers['content-type']).toMatch(/text\/plain/);
    expect(metrics.text).toContain('http_request_duration_seconds');
    // Labelled by route template, never by raw path.
    expect(metrics.text).toMatch(/http_request_duration_seconds_count\{[^}]*route="\/healthz"/);
  });

  it('answers an unknown path with 404 problem+json', async () => {
    const res = await request(api.app).get(`${API_PREFIX}/no-such-thing`);
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body.code).toBe('not-found');
  });
});
