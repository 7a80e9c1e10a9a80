import IORedis from 'ioredis';
import { closeForGood, createRedisConnection, recordDuplicates, type RedisConnection } from '../../shared/redis/connection';
import { createRedis } from '../../shared/redis/redis';
import { createLogger } from '../../shared/logging/logger';
import { workerCommandClient } from '../../shared/commands/command-client';
import { waitFor } from '../support/wait-for';

/*
 * The service's Redis connections as Redis sees them (shared/redis/connection.ts): each names itself
 * `role:pid:what`, and one closed for good stays closed even when something connects it again, as
 * BullMQ's reset of a blocking connection does after a worker's close.
 */

const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

describe('Redis connections', () => {
  let admin: IORedis;
  const names = async () =>
    String(await admin.client('LIST'))
      .trim()
      .split('\n')
      .map((l) => /name=(\S*)/.exec(l)?.[1] ?? '');

  beforeAll(() => {
    admin = new IORedis(url, { maxRetriesPerRequest: 1 });
  });
  afterAll(() => admin.disconnect());

  it('each names itself in CLIENT LIST: the role of its process, the pid and what it is for', async () => {
    const log = createLogger('silent', 'worker:sorting');
    const client = createRedis(url, { log, name: 'partition lease changes' });
    try {
      await client.ping();
      expect(await names()).toContain(`worker:sorting:${process.pid}:partition-lease-changes`);
    } finally {
      client.disconnect();
    }
  });

  it('a worker process has one command client, whatever kinds send commands, closed with the process', async () => {
    const closers: (() => Promise<void> | void)[] = [];
    const runtime = {
      log: createLogger('silent', 'worker:lights+sweeper'),
      queueSettings: { redisUrl: url, prefix: `one-client-${process.pid}`, partitions: 2, commandTimeoutMs: 5_000 },
      onClose: (_name: string, fn: () => Promise<void> | void) => void closers.push(fn),
    };
    // The light gateway and the sweeper of one process, as npm start's pipeline process runs them.
    const lights = workerCommandClient(runtime);
    const sweeper = workerCommandClient(runtime);
    expect(sweeper).toBe(lights);
    const mine = async () => (await names()).filter((n) => n.startsWith(`worker:lights+sweeper:${process.pid}:`)).sort();
    await waitFor(async () => (await mine()).length === 2, { what: 'the command client connected' });
    expect(await mine()).toEqual([`worker:lights+sweeper:${process.pid}:command-producer`, `worker:lights+sweeper:${process.pid}:command-replies`]);
    expect(closers).toHaveLength(1);
    for (const close of closers.reverse()) await close();
    await waitFor(async () => (await mine()).length === 0, { what: 'the command client closed' });
  });

  it('a connection closed for good stays closed when something connects it again; so do the copies made of it', async () => {
    const tag = `closed-for-good-${process.pid}`;
    const client = createRedisConnection(url, { name: { what: tag } });
    const copies = recordDuplicates(client);
    const copy: RedisConnection = (client as IORedis).duplicate({ connectionName: `${tag}-copy` });
    expect(copies).toEqual([copy]);
    await Promise.all([client.ping(), copy.ping()]);
    expect((await names()).filter((n) => n.includes(tag))).toHaveLength(2);

    for (const c of [client, copy]) closeForGood(c);
    await waitFor(() => client.status === 'end' && copy.status === 'end', { what: 'both connections ended' });
    // What BullMQ's reconnect loop does with a connection that has ended: connect() it.
    for (const c of [client, copy]) await (c as IORedis).connect().catch(() => undefined);
    await waitFor(() => client.status === 'end' && copy.status === 'end', { timeoutMs: 5_000, what: 'both connections ended again' });
    // Redis lists a connection until it has read its end.
    await waitFor(async () => (await names()).every((n) => !n.includes(tag)), { timeoutMs: 5_000, what: 'no connection of the test left in CLIENT LIST' });
  });

  it('closing for good a connection that has ended already leaves no timer to hold the process open', async () => {
    const client = createRedisConnection(url, { name: { what: `ended-${process.pid}` } });
    await client.ping();
    client.disconnect();
    await waitFor(() => client.status === 'end', { what: 'the connection ended' });
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const before = timers();
    closeForGood(client);
    expect(timers()).toBe(before);
    expect(client.status).toBe('end');
  });
});
