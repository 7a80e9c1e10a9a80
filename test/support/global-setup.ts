import { initOrm, migrate } from '../../shared/db/orm';
import { TEST_PG_BASE, dropDatabase, staleTestDatabases, templateDbName, withAdmin, workerDbName } from './test-db';

/**
 * Migrates a template database once, then clones it for every jest worker, so tests run
 * in parallel, each worker on its own database and Redis key prefix.
 */
export default async function globalSetup(globalConfig: { maxWorkers: number }): Promise<void> {
  const run = String(process.pid);
  process.env.SORTING_TEST_RUN = run; // inherited by the jest workers
  const workers = Math.max(1, globalConfig.maxWorkers);
  await withAdmin(async (pg) => {
    for (const name of await staleTestDatabases(pg, run)) await dropDatabase(pg, name);
    await pg.query(`create database "${templateDbName(run)}"`);
  });
  const orm = await initOrm(`${TEST_PG_BASE}/${templateDbName(run)}`, 2);
  try {
    await migrate(orm);
  } finally {
    await orm.close();
  }
  await withAdmin(async (pg) => {
    for (let w = 1; w <= workers; w++) {
      await pg.query(`create database "${workerDbName(w, run)}" template "${templateDbName(run)}"`);
    }
  });
}
