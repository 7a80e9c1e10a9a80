import type { z } from 'zod';
import { ROUTE_GROUPS, API_PREFIX, CATALOG_PREFIX } from '../app';
import { EVENT_SCHEMAS } from '../../../shared/events/event-schemas';
import { wallEventDto } from '../routes/events.route';
import { jsonSchema, type MountedRoutes } from './openapi';

/**
 * The pages' type declarations (services/hub/types.d.ts): what each operation answers and what each
 * event carries, written as TypeScript from the same zod schemas the OpenAPI document and the event
 * contract use (zod → JSON Schema → TypeScript). The pages are plain JavaScript checked by tsc against
 * them (services/hub/tsconfig.json, part of `npm run lint`), so a field renamed in a schema fails the
 * page that reads it. `npm run pages:types` writes the file; test/unit/page-types.test.ts fails when
 * the committed one is not what this writes.
 */

type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  enum?: unknown[];
  const?: unknown;
  description?: string;
  [k: string]: unknown;
};

/** Keywords that shape a value; one the converter does not know fails the generation instead of being read as `unknown`. */
const UNSUPPORTED = ['$ref', '$defs', 'allOf', 'not', 'prefixItems', 'if', 'patternProperties', 'dependentSchemas'];

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const key = (k: string) => (IDENT.test(k) ? k : `'${k.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`);
const literal = (v: unknown) => (typeof v === 'string' ? `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'` : JSON.stringify(v));
const comment = (text: string, pad: string) => `${pad}/** ${text.replace(/\*\//g, '*\\/').replace(/\s*\n\s*/g, ' ')} */\n`;

/** A type's text that may need parentheses before `[]`. */
const isUnion = (t: string) => {
  let depth = 0;
  for (const c of t) {
    if ('{([<'.includes(c)) depth++;
    else if ('})]>'.includes(c)) depth--;
    else if (c === '|' && depth === 0) return true;
  }
  return false;
};

function union(types: string[]): string {
  const unique = [...new Set(types)];
  return unique.length ? unique.join(' | ') : 'never';
}

/** The TypeScript type of a JSON Schema (the subset z.toJSONSchema writes), indented by `pad`. */
export function tsType(s: Schema, pad = ''): string {
  for (const k of UNSUPPORTED) if (k in s) throw new Error(`page types: JSON Schema keyword '${k}' is not supported (extend tsType in services/api/http/page-types.ts)`);
  if ('const' in s) return literal(s.const);
  if (s.enum) return union(s.enum.map(literal));
  const alternatives = s.anyOf ?? s.oneOf;
  if (alternatives) return union(alternatives.map((a) => tsType(a, pad)).map((t) => (t.includes('=>') ? `(${t})` : t)));
  if (Array.isArray(s.type)) return union(s.type.map((t) => tsType({ ...s, type: t }, pad)));
  switch (s.type) {
    case 'string':
      return 'string';
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array': {
      const item = s.items ? tsType(s.items, pad) : 'unknown';
      return isUnion(item) ? `Array<${item}>` : `${item}[]`;
    }
    case 'object':
      return objectType(s, pad);
    case undefined:
      return 'unknown';
    default:
      throw new Error(`page types: JSON Schema type '${s.type}' is not supported`);
  }
}

function objectType(s: Schema, pad: string): string {
  const inner = `${pad}  `;
  const required = new Set(s.required ?? []);
  const lines = Object.entries(s.properties ?? {}).map(
    ([name, p]) => `${p.description ? comment(p.description, inner) : ''}${inner}${key(name)}${required.has(name) ? '' : '?'}: ${tsType(p, inner)};\n`,
  );
  const extra = s.additionalProperties;
  if (extra !== false && (extra !== undefined || !s.properties)) lines.push(`${inner}[key: string]: ${extra && extra !== true ? tsType(extra, inner) : 'unknown'};\n`);
  return lines.length ? `{\n${lines.join('')}${pad}}` : '{}';
}

/** What the declarations are written from: the mounted routes (as the OpenAPI document's) and the event types' schemas. */
export interface PageTypeSources {
  groups: MountedRoutes[];
  events: Record<string, z.ZodType>;
}

export const PAGE_TYPE_SOURCES: PageTypeSources = {
  groups: [
    { prefix: '', routes: ROUTE_GROUPS.root },
    { prefix: API_PREFIX, routes: ROUTE_GROUPS.api },
    { prefix: CATALOG_PREFIX, routes: ROUTE_GROUPS.catalog },
  ],
  events: EVENT_SCHEMAS,
};

/** The whole of services/hub/types.d.ts (a test passes other sources: a schema with a field renamed). */
export function pageTypesModule(sources: PageTypeSources = PAGE_TYPE_SOURCES): string {
  const responses: string[] = [];
  for (const { prefix, routes } of sources.groups) {
    for (const r of routes) {
      if (!r.response || r.responseContentType) continue;
      const doc = `${r.method.toUpperCase()} ${prefix}${r.path}: ${r.summary}`;
      responses.push(`${comment(doc, '  ')}  ${r.operationId}: ${tsType(jsonSchema(r.response, 'output') as Schema, '  ')};\n`);
    }
  }
  const events = Object.entries(sources.events).map(([type, schema]) => `  ${key(type)}: ${tsType(jsonSchema(schema, 'output') as Schema, '  ')};\n`);
  const envelope = jsonSchema(wallEventDto.omit({ type: true, data: true }), 'output') as Schema;
  const envelopeFields = objectType(envelope, '').slice(2, -2);
  return `// Generated from the API's zod schemas (each operation's answer, the event types' data in
// shared/events/event-schemas.ts) by \`npm run pages:types\`: do not edit.
// The pages (services/hub/*.js) are checked against these declarations by \`npm run lint\`.

/** What each operation answers (its JSON body on success), by its operationId in the OpenAPI document. */
export interface Responses {
${responses.join('')}}

/** The \`data\` of each event type (docs/api.md §8), as hubs receive it. */
export interface EventData {
${events.join('')}}

export type EventType = keyof EventData;

/** An event as hubs receive it (WebSocket, server-sent events, GET /events/recent): its \`type\` narrows its \`data\`. */
export type WallEvent = {
  [T in EventType]: {
${envelopeFields.replace(/^/gm, '  ')}
    type: T;
    data: EventData[T];
  };
}[EventType];
`;
}
