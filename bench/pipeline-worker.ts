import { closeOnSignals, createRuntime } from '../shared/runtime/runtime';
import { startWorkers, type WorkerKind } from '../workers/registry';

/*
 * `npx tsx bench/pipeline-worker.ts outbox,audit,stats`: several worker kinds in one process, one
 * runtime (one database pool, one notification listener), as a deployment runs the roles that need no
 * core of their own. bench/pipeline-cpu.ts uses it with PIPELINE_PROCESSES=one.
 */
async function main(): Promise<void> {
  const kinds = (process.argv[2] ?? '').split(',').filter(Boolean) as WorkerKind[];
  const runtime = await createRuntime(`worker:${kinds.join('+')}`);
  closeOnSignals(runtime);
  await startWorkers(runtime, kinds);
}

main().catch((err) => {
  console.error(err instanceof Error ? err.stack ?? err.message : err);
  process.exit(1);
});
