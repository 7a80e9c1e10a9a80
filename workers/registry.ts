import type { Runtime } from '../shared/runtime/runtime';
import { WORKER_KIND_NAMES, type WorkerKind } from '../shared/runtime/worker-kinds';

type Loader = (runtime: Runtime) => Promise<void>;

/**
 * The kinds with a worker of their own; every other kind runs its event consumer and nothing else
 * (its entry in workers/pipeline/consumers.ts, started by startConsumerKind).
 */
const OWN_WORKERS: Partial<Record<WorkerKind, Loader>> = {
  sorting: async (runtime) => (await import('./sorting/sorting.worker')).startSortingWorker(runtime),
  sweeper: async (runtime) => (await import('./sweeper/sweeper.worker')).startSweeperWorker(runtime),
  outbox: async (runtime) => (await import('./outbox/outbox.worker')).startOutboxWorker(runtime),
  webhooks: async (runtime) => (await import('./webhooks/webhooks.worker')).startWebhooksWorker(runtime),
  lights: async (runtime) => (await import('./lights/lights.worker')).startLightsWorker(runtime),
  labels: async (runtime) => (await import('./labels/labels.worker')).startLabelsWorker(runtime),
};

/**
 * Every worker kind's code; `npm run start:worker -- <kind>[,<kind>…]` runs one or several in one process,
 * `npm start` runs them all (grouped by their process group: shared/runtime/worker-kinds.ts). Each entry
 * loads its module only when that kind starts, so a process carries the code of the kinds it runs and
 * no more (the label renderers stay out of the sorting worker, the sorting machines out of the pipeline
 * process). test/unit/worker-kinds.test.ts checks that a kind without its own worker has a consumer.
 */
export const WORKER_KINDS: Record<WorkerKind, Loader> = Object.fromEntries(
  WORKER_KIND_NAMES.map((kind) => [kind, OWN_WORKERS[kind] ?? (async (runtime: Runtime) => (await import('./pipeline/consumers')).startConsumerKind(runtime, kind))]),
) as Record<WorkerKind, Loader>;

/** The kinds whose code is their event consumer alone. */
export const CONSUMER_ONLY_KINDS: readonly WorkerKind[] = WORKER_KIND_NAMES.filter((k) => !OWN_WORKERS[k]);

export async function startWorkers(runtime: Runtime, kinds: readonly WorkerKind[]): Promise<void> {
  for (const kind of kinds) {
    await WORKER_KINDS[kind](runtime);
    runtime.log.info({ kind }, `worker '${kind}' started`);
  }
}
