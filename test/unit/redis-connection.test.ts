import { Cluster } from 'ioredis';
import { loadConfig } from '../../shared/config/config';
import { commandQueueName } from '../../shared/commands/partitioning';
import { queueNames } from '../../shared/queue/queue-registry';
import { createRedisConnection, parseRedisUrl } from '../../shared/redis/connection';

/** Redis Cluster's key slot: CRC16 (XMODEM) of the hash tag, or of the whole key without one, mod 16384. */
function keySlot(key: string): number {
  const open = key.indexOf('{');
  if (open >= 0) {
    const close = key.indexOf('}', open + 1);
    if (close > open + 1) key = key.slice(open + 1, close);
  }
  let crc = 0;
  for (const byte of Buffer.from(key)) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc % 16384;
}

describe('REDIS_URL', () => {
  it('names one server with redis:// and a cluster with redis+cluster://host:port,...', () => {
    expect(parseRedisUrl('redis://127.0.0.1:6379')).toEqual({ kind: 'single', url: 'redis://127.0.0.1:6379' });
    expect(parseRedisUrl('redis+cluster://10.0.0.1:7000,10.0.0.2:7001/')).toEqual({
      kind: 'cluster',
      nodes: [{ host: '10.0.0.1', port: 7000 }, { host: '10.0.0.2', port: 7001 }],
      username: undefined,
      password: undefined,
      tls: false,
    });
    expect(parseRedisUrl('rediss+cluster://app:s%40cret@redis-a:6380')).toMatchObject({ kind: 'cluster', username: 'app', password: 's@cret', tls: true });
    expect(() => parseRedisUrl('redis+cluster://')).toThrow(/at least one host:port/);
    expect(() => parseRedisUrl('redis+cluster://nohost')).toThrow(/not host:port/);
  });

  it('is checked at start, and QUEUE_PREFIX may not hold a hash tag', () => {
    expect(() => loadConfig({ REDIS_URL: 'redis+cluster://a' })).toThrow(/REDIS_URL/);
    expect(() => loadConfig({ QUEUE_PREFIX: '{sorting}' })).toThrow(/QUEUE_PREFIX/);
    expect(loadConfig({ REDIS_URL: 'redis+cluster://127.0.0.1:7101' }).REDIS_URL).toBe('redis+cluster://127.0.0.1:7101');
  });

  it('opens an ioredis Cluster for a cluster URL, with BullMQ-ready options on blocking connections', () => {
    const cluster = createRedisConnection('redis+cluster://127.0.0.1:1,127.0.0.1:2', { blocking: true, redisOptions: { lazyConnect: true } });
    try {
      expect(cluster).toBeInstanceOf(Cluster);
      const opts = (cluster as Cluster).options;
      expect(opts.redisOptions?.maxRetriesPerRequest).toBeNull();
      expect(opts.scaleReads).toBe('master');
      expect(opts.maxRedirections! * opts.retryDelayOnFailover!).toBeGreaterThanOrEqual(10_000);
    } finally {
      cluster.disconnect();
    }
  });
});

describe('queue keys on a cluster', () => {
  it("keep each queue's keys in one slot and spread the partition queues over many slots", () => {
    for (const name of queueNames(8)) {
      const slots = new Set(['wait', 'active', 'meta', 'events', '123', '123:lock'].map((k) => keySlot(`sorting:${name}:${k}`)));
      expect({ name, slots: slots.size }).toEqual({ name, slots: 1 });
    }
    const partitionSlots = new Set(Array.from({ length: 64 }, (_, p) => keySlot(`sorting:${commandQueueName(p)}:wait`)));
    expect(partitionSlots.size).toBe(64);
    // Thirds of the slot space, as redis-cli --cluster create assigns them to three masters.
    const thirds = new Set(Array.from({ length: 8 }, (_, p) => Math.floor(keySlot(`sorting:${commandQueueName(p)}:wait`) / 5462)));
    expect(thirds.size).toBe(3);
  });
});
