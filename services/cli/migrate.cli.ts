import { loadConfig } from '../../shared/config/config';
import { createLogger } from '../../shared/logging/logger';
import { ensureDatabase, initOrm, migrate } from '../../shared/db/orm';

/**
 * `npm run migrate`: applies the committed migrations and exits.
 * `npm run migrate -- --seed` then also seeds the demo client when SEED_DEMO is on and the database
 * has no client: the one-off step of a deployment whose API and workers run as separate processes
 * (docker-compose.yml), where no `npm start` does it.
 */
async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const unknown = args.filter((a) => a !== '--seed');
  if (unknown.length) throw new Error(`Unknown argument(s): ${unknown.join(' ')}. Usage: npm run migrate [-- --seed]`);
  const config = loadConfig();
  const log = createLogger(config.LOG_LEVEL, 'migrate');
  await ensureDatabase(config.DATABASE_URL, log);
  const orm = await initOrm(config.DATABASE_URL, 2);
  try {
    await migrate(orm, log);
    if (args.includes('--seed') && config.SEED_DEMO) {
      // Loaded only when asked: a plain migration carries none of the seed's code.
      const { seedDemo } = await import('../seed/seed-demo.use-case');
      const seeded = await seedDemo(orm.em.fork(), config, log);
      if (seeded) process.stderr.write(`${seeded.banner}\n`);
    }
  } finally {
    await orm.close();
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
