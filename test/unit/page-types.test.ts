import { copyFileSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import { z } from 'zod';
import { PAGE_TYPE_SOURCES, pageTypesModule, tsType, type PageTypeSources } from '../../services/api/http/page-types';
import { wallProgressDto } from '../../shared/dto/wall.dto';
import { sortBoxDto } from '../../shared/dto/sorting.dto';
import { webhookDeliveryDto } from '../../services/api/use-cases/webhooks/webhook.dto';

/*
 * The pages (services/hub/*.js, plain JavaScript) are checked by tsc against declarations written from
 * the API's zod schemas (services/hub/types.d.ts, `npm run pages:types`): the committed file must be the
 * one the schemas give now, the pages must pass the check, and a field renamed in a schema must fail the
 * page that reads it.
 */

const HUB = join(__dirname, '..', '..', 'services', 'hub');

/** tsc on a folder laid out like services/hub (its tsconfig.json): the diagnostics, one line each. */
function check(dir: string): string[] {
  const config = ts.getParsedCommandLineOfConfigFile(join(dir, 'tsconfig.json'), undefined, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => {
      throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    },
  });
  if (!config) throw new Error(`no tsconfig.json in ${dir}`);
  const program = ts.createProgram(config.fileNames, config.options);
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const where = d.file ? `${d.file.fileName.slice(dir.length + 1)}(${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1})` : '';
    return `${where}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`;
  });
}

/** The pages and their tsconfig in a folder of their own, with the declarations `sources` give. */
function pagesWith(sources: PageTypeSources): string {
  const dir = mkdtempSync(join(tmpdir(), 'page-types-'));
  for (const f of readdirSync(HUB)) if (f.endsWith('.js') || f === 'tsconfig.json') copyFileSync(join(HUB, f), join(dir, f));
  writeFileSync(join(dir, 'types.d.ts'), pageTypesModule(sources));
  return dir;
}

/** The sources (by default the API's) with operation `operationId` answering `response` instead. */
function withResponse(operationId: string, response: z.ZodType, sources: PageTypeSources = PAGE_TYPE_SOURCES): PageTypeSources {
  let found = false;
  const groups = sources.groups.map((g) => ({
    ...g,
    routes: g.routes.map((r) => (r.operationId === operationId ? ((found = true), { ...r, response }) : r)),
  }));
  if (!found) throw new Error(`no operation ${operationId}`);
  return { ...sources, groups };
}

/** What operation `operationId` answers, as the API declares it. */
function responseOf(operationId: string): z.ZodType {
  const route = PAGE_TYPE_SOURCES.groups.flatMap((g) => g.routes).find((r) => r.operationId === operationId);
  if (!route?.response) throw new Error(`no operation ${operationId} with an answer`);
  return route.response;
}

describe('the pages type declarations (services/hub/types.d.ts)', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('are the ones the schemas give now (run npm run pages:types after changing a response or event schema)', () => {
    expect(readFileSync(join(HUB, 'types.d.ts'), 'utf8')).toBe(pageTypesModule());
  });

  it('type the pages without an error', () => {
    expect(check(HUB)).toEqual([]);
  });

  it('fail the hub page when a field of an answer it reads is renamed in its zod schema', () => {
    // GET /walls/{id}/progress: unitsLeft renamed unitsToSort.
    const { unitsLeft, ...rest } = wallProgressDto.shape;
    const renamed = z.object({ ...rest, unitsToSort: unitsLeft });
    const dir = pagesWith(withResponse('GetWallProgress', renamed));
    dirs.push(dir);
    const errors = check(dir);
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.every((e) => e.startsWith('hub.js('))).toBe(true);
    expect(errors.join('\n')).toMatch(/Property 'unitsLeft' does not exist/);
  });

  it('fail the console when fields of answers only it reads are renamed (a delivery, one of the three import reports)', () => {
    // GET /admin/webhooks/{id}/deliveries: attemptedAt renamed at; POST /admin/picklists/import: problemCount renamed problemsFound.
    const { attemptedAt, ...delivery } = webhookDeliveryDto.shape;
    const { problemCount, ...report } = (responseOf('ImportPicklists') as z.ZodObject).shape;
    const sources = withResponse(
      'ImportPicklists',
      z.object({ ...report, problemsFound: problemCount }),
      withResponse('ListWebhookDeliveries', z.array(z.object({ ...delivery, at: attemptedAt }))),
    );
    const dir = pagesWith(sources);
    dirs.push(dir);
    const errors = check(dir);
    expect(errors.length).toBeGreaterThan(0);
    const files = [...new Set(errors.map((e) => e.slice(0, e.indexOf('('))))].sort();
    expect(files).toEqual(['console-imports.js', 'console-webhooks.js']);
    expect(errors.join('\n')).toMatch(/Property 'attemptedAt' does not exist/);
    expect(errors.join('\n')).toMatch(/Property 'problemCount' does not exist/);
  });

  it('fail the pages that read an event field renamed in its type\'s schema', () => {
    // sort-box.completed: orderId renamed order (the hub's feed and bar, the sorter's completion cue read it).
    const events = { ...PAGE_TYPE_SOURCES.events, 'sort-box.completed': z.object({ sortBox: sortBoxDto, order: z.number().int() }) };
    const dir = pagesWith({ ...PAGE_TYPE_SOURCES, events });
    dirs.push(dir);
    const errors = check(dir);
    const files = [...new Set(errors.map((e) => e.slice(0, e.indexOf('('))))].sort();
    expect(files).toEqual(['hub.js', 'sorter.js']);
    expect(errors.join('\n')).toMatch(/Property 'orderId' does not exist/);
  });
});

describe('JSON Schema to TypeScript (tsType)', () => {
  const of = (schema: z.ZodType) => tsType(z.toJSONSchema(schema, { io: 'output' }) as Parameters<typeof tsType>[0]);

  it('writes objects, optional and nullable fields, enums, literals, arrays, unions and records', () => {
    expect(of(z.object({ a: z.string(), b: z.number().int().optional(), c: z.enum(['x', "y'z"]).nullable() }))).toBe(
      "{\n  a: string;\n  b?: number;\n  c: 'x' | 'y\\'z' | null;\n}",
    );
    expect(of(z.array(z.union([z.literal('on'), z.boolean()])))).toBe("Array<'on' | boolean>");
    expect(of(z.record(z.string(), z.number()))).toBe('{\n  [key: string]: number;\n}');
    expect(of(z.object({ 'odd-key': z.unknown() }).describe('x'))).toBe("{\n  'odd-key': unknown;\n}");
  });

  it('refuses JSON Schema it does not know rather than typing it loosely', () => {
    const node: z.ZodType = z.object({ id: z.number(), get children() {
      return z.array(node);
    } });
    expect(() => of(node)).toThrow(/not supported/);
  });
});
