import type { Runtime } from '../shared/runtime/runtime';
import type { WorkerKind } from '../shared/runtime/worker-kinds';

/**
 * Every worker kind's code; `npm run start:worker -- <kind>[,<kind>…]` runs one or several in one process,
 * `npm start` runs them all (grouped: services/supervisor/roles.ts). Each entry loads its module only
 * when that kind starts, so a process carries the code of the kinds it runs and no more (the label
 * renderers stay out of the sorting worker, the sorting machines out of the pipeline process). The
 * names are shared/runtime/worker-kinds.ts: the compiler wants one loader for each.
 */
export const WORKER_KINDS = {
  sorting: async (runtime: Runtime) => (await import('./sorting/sorting.worker')).startSortingWorker(runtime),
  sweeper: async (runtime: Runtime) => (await import('./sweeper/sweeper.worker')).startSweeperWorker(runtime),
  outbox: async (runtime: Runtime) => (await import('./outbox/outbox.worker')).startOutboxWorker(runtime),
  webhooks: async (runtime: Runtime) => (await import('./webhooks/webhooks.worker')).startWebhooksWorker(runtime),
  // Kinds that run one event consumer and nothing else: its entry in workers/pipeline/consumers.ts.
  audit: async (runtime: Runtime) => (await import('./pipeline/consumers')).startConsumerKind(runtime, 'audit'),
  stats: async (runtime: Runtime) => (await import('./pipeline/consumers')).startConsumerKind(runtime, 'stats'),
  labels: async (runtime: Runtime) => (await import('./pipeline/consumers')).startConsumerKind(runtime, 'labels'),
  lights: async (runtime: Runtime) => (await import('./lights/lights.worker')).startLightsWorker(runtime),
} as const satisfies Record<WorkerKind, (runtime: Runtime) => Promise<void>>;

export async function startWorkers(runtime: Runtime, kinds: readonly WorkerKind[]): Promise<void> {
  for (const kind of kinds) {
    await WORKER_KINDS[kind](runtime);
    runtime.log.info({ kind }, `worker '${kind}' started`);
  }
}
