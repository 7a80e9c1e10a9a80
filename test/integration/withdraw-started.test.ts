import IORedis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { loadConfig } from '../../shared/config/config';
import { createLogger } from '../../shared/logging/logger';
import { partitionQueueName } from '../../shared/queue/jobs';
import { PartitionProducer } from '../../shared/queue/queue-module';

/*
 * A timed-out command is withdrawn ("nothing was changed") only when no worker ever started it. A job
 * back in the wait list after a start (the stalled check returns a job whose worker stopped renewing its
 * lock: paused, cut off from Redis) may still be committed by that worker, so it is not taken back.
 */
describe('withdrawing a waiting command job', () => {
  const config = loadConfig();
  const settings = { redisUrl: config.REDIS_URL, prefix: `${config.QUEUE_PREFIX}-withdraw`, partitions: 1, commandTimeoutMs: 1000 };
  const producer = new PartitionProducer(settings, createLogger('silent', 'test'), { reply: () => undefined, replyLink: () => undefined });
  const redis = new IORedis(config.REDIS_URL);
  const key = (suffix: string) => `${settings.prefix}:${partitionQueueName(0)}:${suffix}`;
  afterAll(async () => {
    await producer.close();
    redis.disconnect();
  });

  const waiting = async (jobId: string) => (await redis.lrange(key('wait'), 0, -1)).includes(jobId);

  it('takes back a job no worker started, and only the caller\'s own', async () => {
    const commandId = randomUUID();
    const jobId = await producer.add(0, { name: 'item.scan', commandId });
    expect(await producer.withdrawIfWaiting(0, jobId, randomUUID())).toBe(false);
    expect(await waiting(jobId)).toBe(true);
    expect(await producer.withdrawIfWaiting(0, jobId, commandId)).toBe(true);
    expect(await waiting(jobId)).toBe(false);
  });

  it.each([
    ['processedOn', String(Date.now())],
    ['ats', '1'],
    ['stc', '1'],
  ])('leaves a job that was started before and is waiting again (%s)', async (field, value) => {
    const commandId = randomUUID();
    const jobId = await producer.add(0, { name: 'item.scan', commandId });
    await redis.hset(key(jobId), field, value);
    expect(await producer.withdrawIfWaiting(0, jobId, commandId)).toBe(false);
    expect(await waiting(jobId)).toBe(true);
    await redis.lrem(key('wait'), 1, jobId);
  });
});
