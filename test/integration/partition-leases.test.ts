import { randomUUID } from 'node:crypto';
import { loadConfig } from '../../shared/config/config';
import { createLogger } from '../../shared/logging/logger';
import { createRedis, type Redis } from '../../shared/redis/redis';
import { leaseKey, PartitionLeases } from '../../shared/commands/partition-leases';
import { waitFor } from '../support/wait-for';

/*
 * Partition leases against the real Redis (shared/commands/partition-leases.ts): the live holders share
 * the partitions fairly; a holder above its share hands partitions back only once their job in hand is
 * done; a holder that stops hands everything back at once, and the others take it within a tick (they
 * hear it on the channel); a holder whose lease another took stops serving it.
 */

const PARTITIONS = 8;
const TTL_MS = 2_000;

describe('partition leases', () => {
  const config = loadConfig();
  const log = createLogger('silent', 'test');
  const prefix = `${config.QUEUE_PREFIX}-leases-${randomUUID().slice(0, 8)}`;
  const connections: Redis[] = [];
  const holders: PartitionLeases[] = [];

  afterAll(async () => {
    await Promise.all(holders.map((h) => h.stop()));
    for (const c of connections) c.disconnect();
  });

  /** A holder whose partitions are a set the test reads; `handBack` decides when a partition's job in hand is done. */
  function holder(handBack: (partition: number) => Promise<void> = async () => undefined) {
    const serving = new Set<number>();
    const lost: number[] = [];
    const redis = createRedis(config.REDIS_URL);
    const sub = createRedis(config.REDIS_URL);
    connections.push(redis, sub);
    const leases = new PartitionLeases(redis, sub, { prefix, partitions: PARTITIONS, ttlMs: TTL_MS, log }, {
      acquired: async (p) => void serving.add(p),
      lost: (p) => {
        serving.delete(p);
        lost.push(p);
      },
      releasing: async (p) => {
        await handBack(p);
        serving.delete(p);
      },
    });
    holders.push(leases);
    return { leases, serving, lost };
  }

  it('share the partitions fairly, hand back only after the job in hand, and take all back at once when one stops', async () => {
    const a = holder(async () => jobInHand);
    let finishJob!: () => void;
    const jobInHand = new Promise<void>((r) => (finishJob = r));
    await a.leases.start();
    expect(a.serving.size).toBe(PARTITIONS);

    const b = holder();
    await b.leases.start();
    // A is above its share (ceil(8 / 2) = 4) but its jobs in hand are not done: it keeps serving them,
    // and keeps their leases, however long that takes (here longer than a lease lasts).
    const from = { rounds: b.leases.rounds, at: Date.now() };
    await waitFor(() => b.leases.rounds >= from.rounds + 7 && Date.now() - from.at > TTL_MS, { timeoutMs: 10_000, what: 'B to try for longer than a lease lasts' });
    expect({ a: a.serving.size, b: b.serving.size }).toEqual({ a: PARTITIONS, b: 0 });
    finishJob();
    await waitFor(() => a.serving.size === 4 && b.serving.size === 4, { timeoutMs: 5_000, what: 'an even share' });
    expect([...a.serving].some((p) => b.serving.has(p))).toBe(false);

    // B stops: A has its partitions back within a tick of hearing it, far sooner than a lease runs out.
    const stoppedAt = Date.now();
    await b.leases.stop();
    await waitFor(() => a.serving.size === PARTITIONS, { timeoutMs: 5_000, intervalMs: 10, what: 'A to take the partitions B handed back' });
    expect(Date.now() - stoppedAt).toBeLessThan(TTL_MS);
  });

  it('a holder whose lease was taken from it stops serving that partition', async () => {
    const c = holder();
    await c.leases.start();
    await waitFor(() => c.serving.size > 0, { what: 'C to hold partitions' });
    const [p] = [...c.serving];
    const redis = connections[connections.length - 2]!;
    // Someone else holds the lease now (as after a stall longer than the lease).
    await redis.set(leaseKey(prefix, p!), 'another-holder', 'PX', 60_000);
    await waitFor(() => !c.serving.has(p!), { timeoutMs: 5_000, what: 'C to stop serving the partition it lost' });
    expect(c.lost).toContain(p);
    await redis.del(leaseKey(prefix, p!));
  });
});
