import { closeOnSignals, createRuntime } from '../shared/runtime/runtime';
import { COMMAND_POOL_KINDS, WORKER_KINDS, resolveWorkerKind, startWorkers } from './registry';

/** `npm run start:worker -- <kind>`: one worker kind per process, no HTTP server. */
async function main(): Promise<void> {
  const resolved = resolveWorkerKind(process.argv[2] ?? '');
  if (!resolved) {
    console.error(`usage: npm run start:worker -- <kind>\nkinds: ${Object.keys(WORKER_KINDS).join(', ')}`);
    process.exit(2);
  }
  const { kind, deprecated } = resolved;
  const runtime = await createRuntime(`worker:${kind}`, { commandPool: COMMAND_POOL_KINDS.has(kind) });
  closeOnSignals(runtime);
  if (deprecated) runtime.log.warn({ kind, deprecated }, `worker kind '${deprecated}' is deprecated: use '${kind}'`);
  await startWorkers(runtime, [kind]);
}

main().catch((err) => {
  console.error(err instanceof Error ? err.stack ?? err.message : err);
  process.exit(1);
});
