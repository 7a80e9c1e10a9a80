import { loadConfig } from '../../shared/config/config';
import { createLogger } from '../../shared/logging/logger';
import { createCommandClient } from '../../shared/commands/command-client';
import { Admission } from '../../shared/commands/admission';
import { COMMAND_NAMES } from '../../shared/commands/commands';
import { partitionOf } from '../../shared/commands/partitioning';
import { partitionQueueName } from '../../shared/queue/jobs';
import { startPartitionHost, type PartitionHost } from '../../shared/commands/partition-host';
import IORedis from 'ioredis';
import { AppError } from '../../shared/errors/app-error';
import { startOwnRedis, type OwnRedis } from '../support/own-redis';
import { waitFor } from '../support/wait-for';

// The client against real Redis with no worker running: what a caller sees when nobody takes its command.
describe('command client without workers', () => {
  const config = loadConfig();
  const log = createLogger('silent', 'test');
  const settings = { redisUrl: config.REDIS_URL, prefix: `${config.QUEUE_PREFIX}-client`, partitions: 2, commandTimeoutMs: 300 };
  const admission = new Admission({ maxWaitMs: 1000, maxInFlight: 1, minInFlight: 1, initialServiceMs: 600, partitions: settings.partitions });
  const client = createCommandClient(settings, log, admission);
  afterAll(() => client.close());

  const expire = () => client.execute('session.expire', { clientId: 1, wallId: 1, sessionId: 1 });

  it('withdraws a command no worker took and says nothing changed (503), and refuses beyond the in-flight bound', async () => {
    const first = expire().catch((e: unknown) => e);
    const second = await expire().catch((e: unknown) => e);
    expect(second).toBeInstanceOf(AppError);
    expect(second).toMatchObject({ code: 'service-unavailable', status: 503 });
    expect((second as AppError).message).toMatch(/at capacity/);
    const outcome = await first;
    expect(outcome).toMatchObject({ code: 'service-unavailable' });
    expect((outcome as AppError).message).toMatch(/withdrawn and nothing was changed/);
  });
});

// Over its partition's limit a command is refused before it is enqueued (docs/api.md §1, Admission):
// 503 with Retry-After at once, no job in Redis, while a wall of another partition is still admitted.
describe('command client at a partition\'s capacity', () => {
  const config = loadConfig();
  const log = createLogger('silent', 'test');
  const settings = { redisUrl: config.REDIS_URL, prefix: `${config.QUEUE_PREFIX}-admission`, partitions: 2, commandTimeoutMs: 1500 };
  // Room for 2 commands per partition, 1 of them new work (a renew), by the least capacity (600 ms each).
  const admission = new Admission({ maxWaitMs: 1000, maxInFlight: 100, minInFlight: 2, initialServiceMs: 600, partitions: settings.partitions });
  let client: ReturnType<typeof createCommandClient>;
  let redis: IORedis;
  beforeAll(() => {
    client = createCommandClient(settings, log, admission);
    redis = new IORedis(config.REDIS_URL, { maxRetriesPerRequest: 1 });
  });
  afterAll(async () => {
    await client?.close();
    redis?.disconnect();
  });

  const renew = (wallId: number) => client.execute('session.renew', { clientId: 1, wallId, employeeId: 1, sessionId: 1, token: 't' } as never).catch((e: unknown) => e as AppError);
  const waiting = (partition: number) => redis.llen(`${settings.prefix}:${partitionQueueName(partition)}:wait`);

  it('answers 503 with Retry-After without enqueuing a job, and still admits a wall of another partition', async () => {
    const wallA = 1;
    const wallB = [2, 3, 4, 5, 6].find((w) => partitionOf(w, 2) !== partitionOf(wallA, 2))!;
    const [pA, pB] = [partitionOf(wallA, 2), partitionOf(wallB, 2)];
    await redis.del(`${settings.prefix}:${partitionQueueName(pA)}:wait`, `${settings.prefix}:${partitionQueueName(pB)}:wait`);
    const first = renew(wallA);
    await waitFor(async () => (await waiting(pA)) === 1, { what: 'the first command to wait in its partition' });

    const refused = await renew(wallA);
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({ code: 'service-unavailable', status: 503 });
    expect((refused as AppError).headers?.['Retry-After']).toMatch(/^[12]$/);
    expect((refused as AppError).message).toMatch(/at capacity.*nothing was changed/);
    expect(await waiting(pA)).toBe(1);

    const other = renew(wallB);
    await waitFor(async () => (await waiting(pB)) === 1, { what: 'the other partition\'s command to be enqueued' });
    // No worker: both are withdrawn when their time is up, nothing changed.
    for (const outcome of await Promise.all([first, other])) expect(outcome).toMatchObject({ code: 'service-unavailable' });
    expect(admission.waiting()).toBe(0);
  });
});

// The client fails fast when Redis goes away (docs/api.md §1): a command waiting for its answer is
// answered at once (504: it may have been taken, so never "nothing changed"), and a new one 503 at once.
describe('command client when Redis goes away', () => {
  const log = createLogger('silent', 'test');
  let redis: OwnRedis;
  let client: ReturnType<typeof createCommandClient>;
  beforeAll(async () => {
    redis = await startOwnRedis();
    client = createCommandClient({ redisUrl: redis.url, prefix: 'client-outage', partitions: 2, commandTimeoutMs: 30_000 }, log);
  });
  afterAll(async () => {
    await client?.close();
    await redis?.close();
  });

  it('answers a command that was waiting 504 with Retry-After long before its timeout, and a new one 503 at once', async () => {
    // No worker: the command waits in its queue.
    const started = Date.now();
    const waiting = client.execute('session.expire', { clientId: 1, wallId: 1, sessionId: 1 }).then(
      () => null,
      (e: unknown) => e as AppError,
    );
    await waitFor(async () => {
      const probe = new IORedis(redis.url, { maxRetriesPerRequest: 1 });
      try {
        return (await probe.keys('client-outage:*:wait')).length > 0;
      } finally {
        probe.disconnect();
      }
    }, { what: 'the command to wait in its queue' });
    await redis.kill();
    const answer = (await waiting)!;
    expect(answer).toMatchObject({ code: 'command-timeout', status: 504 });
    expect(answer.message).toMatch(/became unreachable.*may still be applied/);
    expect(answer.headers?.['Retry-After']).toMatch(/^\d+$/);
    // Answered by the loss of the reply channel, not by the 30 s command timeout.
    expect(Date.now() - started).toBeLessThan(20_000);

    const sent = Date.now();
    const refused = (await client.execute('session.expire', { clientId: 1, wallId: 1, sessionId: 2 }).then(
      () => null,
      (e: unknown) => e as AppError,
    ))!;
    expect(refused).toMatchObject({ code: 'service-unavailable', status: 503 });
    expect(refused.headers?.['Retry-After']).toMatch(/^\d+$/);
    expect(Date.now() - sent).toBeLessThan(5_000);
  });
});

// An answer published while the caller's reply channel was away is not lost: the worker returns it
// with the job too, and the client reads it there once the channel is back.
describe('command client whose reply channel was away when the answer came', () => {
  const log = createLogger('silent', 'test');
  let redis: OwnRedis;
  let client: ReturnType<typeof createCommandClient>;
  let host: PartitionHost;
  let admin: IORedis;
  beforeAll(async () => {
    redis = await startOwnRedis();
    admin = new IORedis(redis.url, { maxRetriesPerRequest: 1 });
    const settings = { redisUrl: redis.url, prefix: 'client-lost-reply', partitions: 1, commandTimeoutMs: 8_000 };
    // Every command answers after dropping every subscriber's connection: the reply goes out to nobody.
    const handler = async () => {
      await admin.client('KILL', 'TYPE', 'pubsub');
      return { ok: true as const, value: null };
    };
    host = await startPartitionHost(settings, Object.fromEntries(COMMAND_NAMES.map((n) => [n, handler])) as never, { log, leaseTtlMs: 5_000 });
    client = createCommandClient(settings, log);
  });
  afterAll(async () => {
    await client?.close();
    await host?.close();
    admin?.disconnect();
    await redis?.close();
  });

  it('answers with what the job returned, not with a timeout', async () => {
    await expect(client.execute('session.expire', { clientId: 1, wallId: 1, sessionId: 1 })).resolves.toBeNull();
  });
});

// The worker says how long it spent on a command with its answer, and admission estimates the
// partition's wait from that (docs/operations.md "Overload"), not from how often answers arrive.
describe('command client and a worker that reports its service time', () => {
  const config = loadConfig();
  const log = createLogger('silent', 'test');
  const settings = { redisUrl: config.REDIS_URL, prefix: `${config.QUEUE_PREFIX}-service-time`, partitions: 1, commandTimeoutMs: 8_000 };
  const admission = new Admission({ maxWaitMs: 1000, maxInFlight: 100, minInFlight: 2, initialServiceMs: 10_000, partitions: 1 });
  let client: ReturnType<typeof createCommandClient>;
  let host: PartitionHost;
  beforeAll(async () => {
    const handler = async () => ({ ok: true as const, value: null });
    host = await startPartitionHost(settings, Object.fromEntries(COMMAND_NAMES.map((n) => [n, handler])) as never, { log, leaseTtlMs: 5_000 });
    client = createCommandClient(settings, log, admission);
  });
  afterAll(async () => {
    await client?.close();
    await host?.close();
  });

  it('moves the partition\'s estimate toward the service time the worker reports', async () => {
    // 10 s per command stands in: with one waiting, a second new command would be refused.
    await expect(client.execute('session.expire', { clientId: 1, wallId: 1, sessionId: 1 })).resolves.toBeNull();
    // A fifth of the way from 10 s to what the handler took (well under the 8 s timeout).
    expect(admission.serviceTime(0)).toBeLessThan(9_700);
    expect(admission.waiting()).toBe(0);
  });
});
