import { closeOnSignals, createRuntime } from '../shared/runtime/runtime';
import { WORKER_KINDS, startWorkers, type WorkerKind } from '../workers/registry';
import { startApi } from './api/start-api';

/**
 * `npm start`: migrations, the demo seed on an empty database, then the API (with the catalog)
 * and every worker kind in this one process.
 */
async function main(): Promise<void> {
  const runtime = await createRuntime('all', { migrate: true });
  closeOnSignals(runtime);
  const { config, log } = runtime;
  if (config.SEED_DEMO) {
    const { seedDemo } = await import('./seed/seed-demo.use-case');
    const seeded = await seedDemo(runtime.orm.em.fork(), config, log);
    // Plain text on stderr for the person at the terminal; stdout stays one JSON log record a line.
    if (seeded) process.stderr.write(`${seeded.banner}\n`);
  }
  await startWorkers(runtime, Object.keys(WORKER_KINDS) as WorkerKind[]);
  await startApi(runtime);
}

main().catch((err) => {
  console.error(err instanceof Error ? err.stack ?? err.message : err);
  process.exit(1);
});
