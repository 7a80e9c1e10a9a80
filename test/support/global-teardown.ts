import IORedis from 'ioredis';
import { dropDatabase, staleTestDatabases, withAdmin } from './test-db';

/** Drops this run's databases and Redis keys. */
export default async function globalTeardown(): Promise<void> {
  const run = process.env.SORTING_TEST_RUN;
  if (!run) return;
  await withAdmin(async (pg) => {
    for (const name of await staleTestDatabases(pg, run)) {
      if (name.includes(`_${run}_`)) await dropDatabase(pg, name);
    }
  });
  const redis = new IORedis(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: 2 });
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `sorting-test-${run}-*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
