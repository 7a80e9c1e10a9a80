import { ROLES, roleArgs, sortingWorkerCount } from '../../services/supervisor/roles';
import { loadConfig } from '../../shared/config/config';
import { parseWorkerKinds, resolveWorkerKind } from '../../shared/runtime/worker-kinds';
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
