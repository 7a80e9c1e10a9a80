import IORedis from 'ioredis';
import { parseCommandStats, type CommandStats } from './budget';

/**
 * Reads Redis's `INFO commandstats` (calls and µs per command since the server started), so a step can
 * say which commands a pair costs (bench/lib/budget.ts). The counts are the whole server's: on a Redis that
 * others use as well they include their commands, which is why the bench starts a Redis of its own.
 */
export class RedisCommandMeter {
  private readonly redis: IORedis;

  constructor(url: string) {
    this.redis = new IORedis(url, { maxRetriesPerRequest: 1, lazyConnect: false });
  }

  async read(): Promise<CommandStats> {
    return parseCommandStats(await this.redis.info('commandstats'));
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => undefined);
  }
}
