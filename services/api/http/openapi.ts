import { z } from 'zod';
import { ERROR_CODES } from '../../../shared/errors/error-codes';
import type { RouteDef } from './route';
import { SMALL_BODY_LIMIT, formatBytes } from './body';

export interface MountedRoutes {
  /** Path prefix the routes are mounted under, e.g. `/api/v1`. */
  prefix: string;
  routes: RouteDef[];
}

const problemSchema = {
  type: 'object',
  required: ['type', 'title', 'status', 'code', 'detail'],
  properties: {
    type: { type: 'string', format: 'uri' },
    title: { type: 'string' },
    status: { type: 'integer' },
    code: { type: 'string', enum: Object.keys(ERROR_CODES) },
    detail: { type: 'string', description: 'What happened, in words a sorter or integrator can act on.' },
    instance: { type: 'string' },
    retryAfterMs: {
      type: 'integer',
      description: 'On a 503 of admission (the service at capacity): the milliseconds to wait before sending again, of which Retry-After is the rounded seconds.',
    },
    errors: {
      type: 'array',
      items: {
        type: 'object',
        required: ['path', 'message'],
        properties: { path: { type: 'string' }, message: { type: 'string' }, in: { type: 'string' } },
      },
    },
  },
} as const;

/** What a 503 or a 504 says about Retry-After (docs/api.md §1). */
const RETRY_AFTER = {
  'Retry-After': {
    description:
      'Whole seconds to wait before sending the request again. A 503 of admission (the service at capacity) draws it between once and twice the time the backlog needs to drain (at least 1 s), so that clients refused at once do not come back at once; its problem carries the drawn milliseconds as retryAfterMs.',
    schema: { type: 'integer', minimum: 1 },
  },
} as const;

/** A zod schema as JSON Schema (draft 2020-12): the OpenAPI document's and the pages' declarations' (page-types.ts). */
export function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const s = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as Record<string, unknown>;
  delete s.$schema;
  return s;
}

function parameters(schema: z.ZodType | undefined, location: 'path' | 'query'): unknown[] {
  if (!schema) return [];
  const js = jsonSchema(schema, 'input') as { properties?: Record<string, Record<string, unknown>>; required?: string[] };
  return Object.entries(js.properties ?? {}).map(([name, s]) => {
    const { description, ...rest } = s;
    return {
      name,
      in: location,
      required: location === 'path' || (js.required ?? []).includes(name),
      ...(description ? { description } : {}),
      schema: rest,
    };
  });
}

/** The OpenAPI 3.1 document, generated from the same zod schemas that validate the requests. */
export function buildOpenApi(groups: MountedRoutes[], info: { version: string }): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const { prefix, routes } of groups) {
    for (const r of routes) {
      const fullPath = prefix + r.path;
      const ok = r.successStatus === 202 ? 'Accepted' : 'OK';
      const responses: Record<string, unknown> = {
        [String(r.successStatus ?? 200)]: r.responseContentType
          ? { description: ok, content: { [r.responseContentType]: { schema: { type: 'string' } } } }
          : r.response
            ? { description: ok, content: { 'application/json': { schema: jsonSchema(r.response, 'output') } } }
            : { description: `${ok} (empty body)` },
      };
      const codes = new Set<string>(r.errors ?? []);
      if (r.params || r.query || r.body) codes.add('validation-failed');
      if (r.body) codes.add('payload-too-large');
      if (r.body) codes.add('unsupported-media-type');
      if (r.access !== 'public') codes.add('unauthorized');
      if (Array.isArray(r.access)) codes.add('forbidden');
      if (r.requiresSubscription) codes.add('subscription-disabled');
      const byStatus = new Map<number, string[]>();
      for (const code of codes) {
        const status = ERROR_CODES[code as keyof typeof ERROR_CODES]?.status;
        if (!status) throw new Error(`${r.operationId}: unknown error code '${code}' in its errors list`);
        byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
      }
      for (const [status, list] of [...byStatus.entries()].sort((a, b) => a[0] - b[0])) {
        responses[String(status)] = {
          description: list.join(', '),
          ...(status === 503 || status === 504 ? { headers: RETRY_AFTER } : {}),
          content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
        };
      }
      const headerParams = (r.headers ?? []).map((h) => ({
        name: h.name,
        in: 'header',
        required: h.required ?? false,
        description: h.description,
        schema: { type: 'string' },
      }));
      const op: Record<string, unknown> = {
        operationId: r.operationId,
        summary: r.summary,
        ...(r.description ? { description: r.description } : {}),
        tags: r.tags,
        parameters: [...parameters(r.params, 'path'), ...parameters(r.query, 'query'), ...headerParams],
        ...(r.body
          ? {
              requestBody: {
                required: !r.bodyOptional,
                description: `At most ${formatBytes(r.bodyLimit ?? SMALL_BODY_LIMIT)} (more: 413 payload-too-large, before the body is read).`,
                content: {
                  ...Object.fromEntries(['application/json', 'text/json', 'application/*+json'].map((t) => [t, { schema: jsonSchema(r.body!, 'input') }])),
                  ...(r.acceptsCsv ? { 'text/csv': { schema: { type: 'string', description: 'UTF-8 comma-separated values with a header row (RFC 4180)' } } } : {}),
                },
              },
            }
          : {}),
        responses,
        ...(r.access === 'public' ? { security: [] } : {}),
        ...(Array.isArray(r.access) ? { 'x-roles': r.access } : {}),
        ...(r.deprecated ? { deprecated: true } : {}),
      };
      paths[fullPath] ??= {};
      paths[fullPath][r.method] = op;
    }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Sorting wall service',
      version: info.version,
      description:
        'Walls, slots, sorter sessions, scans and confirmations of a sorting (put) wall. Errors are RFC 9457 problem details with a stable `code`.',
    },
    servers: [{ url: '/' }],
    security: [{ bearerAuth: [] }],
    paths,
    components: {
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
      schemas: { Problem: problemSchema },
    },
  };
}
