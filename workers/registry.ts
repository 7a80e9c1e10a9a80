import type { Runtime } from '../shared/runtime/runtime';
import type { WorkerKind } from '../shared/runtime/worker-kinds';
import { ownWorker, startWorkerKind, type WorkerKindCode } from './pipeline/worker-kind';

/**
 * Every worker kind's code, loaded when that kind starts, so a process carries the code of the kinds it
 * runs and no more (the label renderers stay out of the sorting worker and the sweeper, the sorting
 * machines out of the pipeline process). `npm run start:worker -- <kind>[,<kind>…]` runs one or several
 * in one process, `npm start` runs them all (grouped by their process group: shared/runtime/worker-kinds.ts).
 * Every kind starts the one way (startWorkerKind): its own start, then each consumer its code lists.
 * The kinds' contexts differ (the light gateway gives its consumer its engine): each is checked where
 * its code is written, and erased here only.
 */
export const WORKER_KINDS: Record<WorkerKind, () => Promise<WorkerKindCode<any>>> = {
  sorting: async () => ownWorker((await import('./sorting/sorting.worker')).startSortingWorker),
  outbox: async () => ownWorker((await import('./outbox/outbox.worker')).startOutboxWorker),
  audit: async () => (await import('./audit/audit.worker')).auditKind,
  stats: async () => (await import('./stats/stats.worker')).statsKind,
  labels: async () => (await import('./labels/labels.worker')).labelsKind,
  lights: async () => (await import('./lights/lights.worker')).lightsKind,
  webhooks: async () => (await import('./webhooks/webhooks.worker')).webhooksKind,
  sweeper: async () => ownWorker((await import('./sweeper/sweeper.worker')).startSweeperWorker),
};

export async function startWorkers(runtime: Runtime, kinds: readonly WorkerKind[]): Promise<void> {
  for (const kind of kinds) {
    await startWorkerKind(runtime, kind, await WORKER_KINDS[kind]());
    runtime.log.info({ kind }, `worker '${kind}' started`);
  }
}
