import fc from 'fast-check';
import { commandQueueName, partitionOf } from '../../shared/commands/partitioning';
import { assertHandlers } from '../../shared/commands/command-dispatch';
import { COMMAND_NAMES } from '../../shared/commands/commands';
import { loadConfig } from '../../shared/config/config';

describe('wall partitioning', () => {
  it('maps a wall to one stable partition in range', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 31 - 1 }), fc.integer({ min: 1, max: 64 }), (wall, n) => {
        const p = partitionOf(wall, n);
        return Number.isInteger(p) && p >= 0 && p < n && p === partitionOf(wall, n);
      }),
    );
  });

  it('spreads consecutive wall ids over the partitions', () => {
    const counts = new Array(8).fill(0);
    for (let wall = 1; wall <= 800; wall++) counts[partitionOf(wall, 8)]++;
    expect(Math.min(...counts)).toBeGreaterThan(60);
    expect(Math.max(...counts)).toBeLessThan(140);
  });

  it('names queues with a Redis Cluster hash tag', () => {
    expect(commandQueueName(3)).toBe('{wall-commands-3}');
  });
});

describe('command handlers', () => {
  it('refuses to start when a command has no handler, naming it', () => {
    const handlers = Object.fromEntries(COMMAND_NAMES.filter((n) => n !== 'item.swap').map((n) => [n, async () => ({ ok: true, value: null })]));
    expect(() => assertHandlers(handlers)).toThrow(/no handler for command\(s\) item\.swap/);
    expect(() => assertHandlers({ ...handlers, 'item.swap': async () => ({ ok: true, value: null }), 'item.juggle': async () => null } as never)).toThrow(/handler\(s\) for no command: item\.juggle/);
    expect(() => assertHandlers({ ...handlers, 'item.swap': async () => ({ ok: true, value: null }) } as never)).not.toThrow();
  });
});

describe('configuration', () => {
  it('applies the documented defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({ PORT: 3000, QUEUE_PREFIX: 'sorting', SESSION_IDLE_TIMEOUT_MS: 28_800_000, SEED_DEMO: true, jwtSecretGenerated: true, JWT_SECRET: '' });
  });

  it('lists every bad setting, and requires JWT_SECRET in production', () => {
    expect(() => loadConfig({ PORT: 'abc', QUEUE_PARTITIONS: '0' })).toThrow(/PORT[\s\S]*QUEUE_PARTITIONS/);
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/JWT_SECRET: required/);
    expect(loadConfig({ NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(32), SEED_DEMO: 'false' })).toMatchObject({ SEED_DEMO: false, jwtSecretGenerated: false });
  });

  it('opens the queue dashboard to the listed Admins only; unset: the demo Admin in development, nobody otherwise', () => {
    expect(loadConfig({ QUEUE_DASHBOARD_ADMINS: ' Ops@Example.com, ,b@x.io ' }).QUEUE_DASHBOARD_ADMINS).toEqual(['ops@example.com', 'b@x.io']);
    expect(loadConfig({}).QUEUE_DASHBOARD_ADMINS).toEqual(['admin@demo.local']);
    expect(loadConfig({ NODE_ENV: 'test' }).QUEUE_DASHBOARD_ADMINS).toEqual([]);
    expect(loadConfig({ NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(32) }).QUEUE_DASHBOARD_ADMINS).toEqual([]);
    expect(loadConfig({ QUEUE_DASHBOARD_ADMINS: '' }).QUEUE_DASHBOARD_ADMINS).toEqual([]);
  });
});
