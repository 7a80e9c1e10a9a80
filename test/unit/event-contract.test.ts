import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { z } from 'zod';
import { decodeEvent, EVENT_SCHEMAS, INTERNAL_EVENT_SCHEMAS, isKnownEventType, PUBLIC_EVENT_SCHEMAS, safeDecodeEvent, type AnyEventType } from '../../shared/events/event-schemas';
import { EVENT_TYPES, INTERNAL_EVENT_TYPES } from '../../shared/events/event-types';
import { hubEventsModule } from '../../shared/events/event-rules';
import { STATS_EVENT_FIELDS } from '../../shared/statistics/event-fields';
import { EVENT_CONSUMERS } from '../support/event-consumers';
import { NO_AUDIT_NAMES, toAuditRecord } from '../../workers/audit/audit-record';
import { EVENT_SAMPLES } from '../support/event-samples';
import { sourceFiles } from '../support/sql-literals';

/*
 * The event contract end to end (docs/architecture.md "Event contract"): one schema per type
 * (shared/events/event-schemas.ts); the writers write only those types and every one of them; each
 * reader handles the types it receives and no type nobody writes.
 */

const ROOT = join(__dirname, '..', '..');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const ALL = Object.keys(EVENT_SCHEMAS).sort();
const sorted = (xs: Iterable<string>) => [...new Set(xs)].sort();
const matches = (text: string, re: RegExp) => [...text.matchAll(re)].map((m) => m[1]!);

/** The types the service's sources write to the outbox, found where each writer names them. */
function writtenTypes(): { written: Set<string>; named: string[] } {
  const written = new Set<string>();
  const named: string[] = [];
  for (const file of sourceFiles(ROOT, ['services', 'shared', 'machines', 'workers'])) {
    if (file.startsWith('shared/events/')) continue;
    const text = read(file);
    // The machines' emit actions and the actor's emit('…'): the workflow events.
    const emitted = [...matches(text, /type: 'emit', params: \{ event: '([^']+)'/g), ...matches(text, /\.emit\('([^']+)'/g)];
    // The light gateway's events (workers/lights: GatewayEvent).
    if (/writeGatewayEvents\(/.test(text)) emitted.push(...matches(text, /type: '([a-z-]+\.[a-z.-]+)'/g));
    // Statements that insert into the outbox: the type literals they write.
    if (/insert into outbox_event/.test(text)) {
      emitted.push(...matches(text, /'([a-z-]+\.[a-z.-]+)'/g).filter(isKnownEventType));
      if (text.includes('${COMMAND_REFUSED}')) emitted.push('command.refused');
    }
    named.push(...emitted);
    emitted.forEach((t) => written.add(t));
  }
  return { written, named };
}

/** The schema of a path into a type's data (`item.crc`), or null when the type has no such field. */
function schemaAt(schema: z.ZodType, path: string): z.ZodType | null {
  let s: z.ZodType = schema;
  for (const key of path.split('.')) {
    while (s.def.type === 'optional' || s.def.type === 'nullable') s = (s as z.ZodOptional).unwrap() as z.ZodType;
    if (s.def.type !== 'object') return null;
    const next = (s as z.ZodObject).shape[key] as z.ZodType | undefined;
    if (!next) return null;
    s = next;
  }
  return s;
}

describe('the event contract', () => {
  it('the schemas and the type lists name the same types; every sample decodes', () => {
    expect(Object.keys(PUBLIC_EVENT_SCHEMAS)).toEqual([...EVENT_TYPES]);
    expect(Object.keys(INTERNAL_EVENT_SCHEMAS)).toEqual([...INTERNAL_EVENT_TYPES]);
    for (const type of ALL) {
      const r = safeDecodeEvent({ id: 'e', type, occurredAt: '2026-11-23T08:00:00.000Z', clientId: 1, wallId: 9, data: EVENT_SAMPLES[type as AnyEventType] });
      expect([type, r.ok]).toEqual([type, true]);
    }
  });

  it('the writers write every type of the schemas, and no other', () => {
    const { written, named } = writtenTypes();
    expect(sorted(named).filter((t) => !isKnownEventType(t))).toEqual([]);
    expect(sorted(written)).toEqual(ALL);
  });

  it('the audit log makes a record with its own message of every type', () => {
    for (const type of ALL) {
      const r = toAuditRecord(decodeEvent({ id: 'e', type, occurredAt: '2026-11-23T08:00:00.000Z', clientId: 1, wallId: 9, data: EVENT_SAMPLES[type as AnyEventType] }), NO_AUDIT_NAMES);
      expect(r.message).not.toBe(`${type}.`);
    }
  });

  it('the consumers filter on types that are written', () => {
    for (const c of Object.values(EVENT_CONSUMERS)) expect((c.types ?? []).filter((t) => !isKnownEventType(t))).toEqual([]);
  });

  it("the statistics' SQL reads only the listed fields, each a field of its types' schemas", () => {
    const sql = read('shared/statistics/rollup.queries.ts');
    const paths = [...sql.matchAll(/e\.data((?:->>?'[A-Za-z]+')+)/g)].map((m) => matches(m[1]!, /'([A-Za-z]+)'/g).join('.'));
    expect(sorted(paths)).toEqual(sorted(STATS_EVENT_FIELDS.map((f) => f.path)));
    for (const f of STATS_EVENT_FIELDS) for (const type of f.types) expect([type, f.path, schemaAt(EVENT_SCHEMAS[type], f.path) !== null]).toEqual([type, f.path, true]);
    const counted = matches(sql, /e\.type (?:=|in \() ?'([^']+)'/g).concat(matches(sql, /, '([a-z-]+\.[a-z.-]+)'/g));
    expect(sorted(counted).filter((t) => !isKnownEventType(t))).toEqual([]);
  });

  it('docs/api.md §8 has a row of every type, and of no other', () => {
    const api = read('docs/api.md');
    const section = api.slice(api.indexOf('## §8 '), api.indexOf('\n## ', api.indexOf('## §8 ') + 1));
    const firstCells = matches(section, /^\| ([^|]+) \|/gm);
    expect(sorted(firstCells.flatMap((cell) => matches(cell, /`([a-z-]+\.[a-z.-]+)`/g)))).toEqual(ALL);
  });

  it("the hub and sorter pages: their module is generated from the contract, and they handle no type nobody writes", () => {
    expect(read('services/hub/events.js')).toBe(hubEventsModule());
    for (const page of ['services/hub/hub.js', 'services/hub/sorter.js']) {
      const handled = matches(read(page), /case '([a-z-]+\.[a-z.-]+)'/g);
      expect([page, sorted(handled).filter((t) => !isKnownEventType(t))]).toEqual([page, []]);
    }
    // The hub shows every type of its wall in its feed.
    expect(sorted(matches(read('services/hub/hub.js'), /case '([a-z-]+\.[a-z.-]+)'/g))).toEqual(ALL);
  });
});
