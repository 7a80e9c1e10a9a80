import { loadConfig } from '../config/config';
import { createLogger } from '../logging/logger';
import { ensureDatabase, initOrm, migrate } from './orm';

/** `npm run migrate`: applies the committed migrations and exits. */
async function main(): Promise<void> {
  const config = loadConfig();
  const log = createLogger(config.LOG_LEVEL, 'migrate');
  await ensureDatabase(config.DATABASE_URL, log);
  const orm = await initOrm(config.DATABASE_URL, 2);
  try {
    await migrate(orm, log);
  } finally {
    await orm.close();
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
