import { closeOnSignals, createRuntime } from '../shared/runtime/runtime';
import { COMMAND_POOL_KINDS, WORKER_KIND_NAMES, parseWorkerKinds } from '../shared/runtime/worker-kinds';
import { startWorkers } from './registry';

/**
 * `npm run start:worker -- <kind>[,<kind>…]`: one worker kind, or several sharing one process and one
 * Runtime (one ORM pool, one Redis connection, one event loop), no HTTP server. `npm start` groups the
 * kinds that need no core of their own this way (services/supervisor/roles.ts).
 */
async function main(): Promise<void> {
  const { kinds, deprecated, unknown } = parseWorkerKinds(process.argv.slice(2));
  if (!kinds.length || unknown.length) {
    if (unknown.length) console.error(`unknown worker kind${unknown.length === 1 ? '' : 's'}: ${unknown.join(', ')}`);
    console.error(`usage: npm run start:worker -- <kind>[,<kind>…]\nkinds: ${WORKER_KIND_NAMES.join(', ')}`);
    process.exit(2);
  }
  const runtime = await createRuntime(`worker:${kinds.join('+')}`, { commandPool: kinds.some((k) => COMMAND_POOL_KINDS.has(k)) });
  closeOnSignals(runtime);
  for (const { name, kind } of deprecated) runtime.log.warn({ kind, deprecated: name }, `worker kind '${name}' is deprecated: use '${kind}'`);
  await startWorkers(runtime, kinds);
}

main().catch((err) => {
  console.error(err instanceof Error ? err.stack ?? err.message : err);
  process.exit(1);
});
