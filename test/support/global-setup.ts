import IORedis from 'ioredis';
import { initOrm, migrate } from '../../shared/db/orm';
import { TEMPLATE_DB, TEST_PG_BASE, dropDatabase, withAdmin, workerDbName } from './test-db';

/**
 * Migrates a template database once, then clones it for every jest worker (STYLE 14), so tests run
 * in parallel, each worker on its own database and Redis key prefix.
 */
export default async function globalSetup(globalConfig: { maxWorkers: number }): Promise<void> {
  const workers = Math.max(1, globalConfig.maxWorkers);
  await withAdmin(async (pg) => {
    await dropDatabase(pg, TEMPLATE_DB);
    await pg.query(`create database "${TEMPLATE_DB}"`);
  });
  const orm = await initOrm(`${TEST_PG_BASE}/${TEMPLATE_DB}`, 2);
  try {
    await migrate(orm);
  } finally {
    await orm.close();
  }
  await withAdmin(async (pg) => {
    for (let w = 1; w <= workers; w++) {
      await dropDatabase(pg, workerDbName(w));
      await pg.query(`create database "${workerDbName(w)}" template "${TEMPLATE_DB}"`);
    }
  });
  const redis = new IORedis(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: 2 });
  try {
    const keys = await redis.keys('sorting-test-w*');
    for (let i = 0; i < keys.length; i += 500) await redis.del(...keys.slice(i, i + 500));
  } finally {
    redis.disconnect();
  }
}
