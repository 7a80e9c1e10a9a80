import { ROLES, roleArgs, sortingWorkerCount } from '../../services/supervisor/roles';
import { loadConfig } from '../../shared/config/config';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { kindsOfGroup, parseWorkerKinds, PROCESS_GROUPS, resolveWorkerKind, WORKER_KIND_GROUPS, WORKER_KIND_NAMES } from '../../shared/runtime/worker-kinds';
import { EVENT_CONSUMER_KINDS } from '../../workers/event-consumers';
import { WORKER_KINDS } from '../../workers/registry';

describe('worker kinds', () => {
  it('webhook deliveries have one name; the former one is still accepted, as deprecated', () => {
    expect(resolveWorkerKind('webhooks')).toEqual({ kind: 'webhooks', deprecated: null });
    expect(resolveWorkerKind('notifications')).toEqual({ kind: 'webhooks', deprecated: 'notifications' });
    expect(resolveWorkerKind('nope')).toBeNull();
    expect(Object.keys(WORKER_KINDS)).not.toContain('notifications');
    expect(ROLES.flatMap((r) => r.kinds ?? [])).toContain('webhooks');
  });

  it('a process takes several kinds, comma-separated or as separate arguments, each once, former names included', () => {
    expect(parseWorkerKinds(['outbox,audit', 'stats'])).toEqual({ kinds: ['outbox', 'audit', 'stats'], deprecated: [], unknown: [] });
    expect(parseWorkerKinds(['webhooks,notifications, sweeper'])).toEqual({
      kinds: ['webhooks', 'sweeper'],
      deprecated: [{ name: 'notifications', kind: 'webhooks' }],
      unknown: [],
    });
    expect(parseWorkerKinds(['sorting,nope,'])).toEqual({ kinds: ['sorting'], deprecated: [], unknown: ['nope'] });
    expect(parseWorkerKinds([]).kinds).toEqual([]);
  });
});

describe("the supervisor's role table", () => {
  it('runs every worker kind in exactly one role, and the API', () => {
    const kinds = ROLES.flatMap((r) => r.kinds ?? []);
    expect([...kinds].sort()).toEqual(Object.keys(WORKER_KINDS).sort());
    expect(new Set(kinds).size).toBe(kinds.length);
    expect(ROLES.filter((r) => !r.kinds?.length).map((r) => r.role)).toEqual(['api']);
    // The API starts last, so it stops first (the workers finish the commands it sent).
    expect(ROLES[ROLES.length - 1]!.role).toBe('api');
  });

  it('is one worker role per process group, in their start order, each with a kind, then the API', () => {
    expect(ROLES.map((r) => r.role)).toEqual([...PROCESS_GROUPS, 'api']);
    for (const group of PROCESS_GROUPS) expect([group, kindsOfGroup(group).length > 0]).toEqual([group, true]);
    // A group's own settings: the sorting workers' count, the pipeline's young generation; any other group one process.
    const config = loadConfig({ SORTING_WORKERS: '3' });
    const settings = Object.fromEntries(ROLES.map((r) => [r.role, [r.count(config), r.nodeFlags ?? []]]));
    // Every process without V8's pretenuring, the pipeline's flag after it.
    const none = ['--no-allocation-site-pretenuring'];
    expect(settings).toEqual({
      ...Object.fromEntries(PROCESS_GROUPS.map((g) => [g, [1, none]])),
      pipeline: [1, [...none, '--max-semi-space-size=4']],
      sorting: [3, none],
      api: [1, none],
    });
  });

  it('gives a grouped role one argument that workers/main.ts reads back as its kinds', () => {
    for (const role of ROLES.filter((r) => r.kinds?.length)) {
      expect(parseWorkerKinds(roleArgs(role))).toEqual({ kinds: role.kinds, deprecated: [], unknown: [] });
    }
  });

  it('runs SORTING_WORKERS sorting processes, and at least one by default', () => {
    expect(sortingWorkerCount(loadConfig({ SORTING_WORKERS: '3' }))).toBe(3);
    expect(sortingWorkerCount(loadConfig({}))).toBeGreaterThanOrEqual(1);
  });
});

describe('the consumer table and the kinds it is checked against', () => {
  it("each kind's code runs the consumers the table names for it, each with a handler; each kind has its loader and its group", async () => {
    expect(Object.keys(WORKER_KINDS).sort()).toEqual([...WORKER_KIND_NAMES].sort());
    for (const kind of WORKER_KIND_NAMES) {
      const code = await WORKER_KINDS[kind]();
      const named = Object.entries(EVENT_CONSUMER_KINDS).filter(([, k]) => k === kind).map(([name]) => name);
      // The retention keeps events for the table's consumers only: one the code runs without its line there would lose events.
      expect([kind, code.consumers.map((c) => c.name).sort()]).toEqual([kind, named.sort()]);
      for (const c of code.consumers) expect([c.name, typeof c.handle]).toEqual([c.name, 'function']);
      // A kind without a worker of its own runs its consumers: it has at least one.
      expect([kind, !!code.start || code.consumers.length > 0]).toEqual([kind, true]);
    }
    for (const role of ROLES.filter((r) => r.kinds?.length)) for (const k of role.kinds!) expect([k, WORKER_KIND_GROUPS[k]]).toEqual([k, role.role]);
  });

  it("docs/architecture.md's table of consumers has a row of each, with its kind, and no other", () => {
    const doc = readFileSync(join(__dirname, '..', '..', 'docs', 'architecture.md'), 'utf8');
    const table = doc.slice(doc.indexOf('| consumer | worker kind |'));
    const rows = [...table.slice(0, table.search(/\n(?!\|)/)).matchAll(/^\| `([a-z-]+)` \| `([a-z-]+)` \|/gm)].map((m) => [m[1], m[2]]);
    expect(rows.sort()).toEqual(Object.entries(EVENT_CONSUMER_KINDS).sort());
  });

  it('docker-compose.yml runs every worker kind as its own service, and no other', () => {
    const compose = readFileSync(join(__dirname, '..', '..', 'docker-compose.yml'), 'utf8');
    const services = [...compose.matchAll(/^ {2}worker-([a-z]+):\n(?: {4}.*\n)*? {4}command: \["node", "--no-allocation-site-pretenuring", "dist\/workers\/main\.js", "([a-z,]+)"\]/gm)].map((m) => [m[1], m[2]]);
    expect(services.map(([name]) => name).sort()).toEqual([...WORKER_KIND_NAMES].sort());
    for (const [name, kinds] of services) expect(kinds).toBe(name);
  });
});
