import type { Runtime } from '../shared/runtime/runtime';
import { startSortingWorker } from './sorting/sorting.worker';
import { startSweeperWorker } from './sweeper/sweeper.worker';
import { startOutboxWorker } from './outbox/outbox.worker';
import { startWebhooksWorker } from './webhooks/webhooks.worker';
import { startAuditWorker } from './audit/audit.worker';
import { startStatsWorker } from './stats/stats.worker';
import { startLabelsWorker } from './labels/labels.worker';
import { startLightsWorker } from './lights/lights.worker';

/** Every worker kind; `npm run start:worker -- <kind>` runs one, `npm start` runs them all. */
export const WORKER_KINDS = {
  sorting: startSortingWorker,
  sweeper: startSweeperWorker,
  outbox: startOutboxWorker,
  webhooks: startWebhooksWorker,
  audit: startAuditWorker,
  stats: startStatsWorker,
  labels: startLabelsWorker,
  lights: startLightsWorker,
} as const satisfies Record<string, (runtime: Runtime) => Promise<void>>;

export type WorkerKind = keyof typeof WORKER_KINDS;

/** Kinds that run the workflow commands on the plain-SQL pool: their process gives it most of its connections (poolShares). */
export const COMMAND_POOL_KINDS: ReadonlySet<WorkerKind> = new Set<WorkerKind>(['sorting']);

export function isWorkerKind(kind: string): kind is WorkerKind {
  return Object.prototype.hasOwnProperty.call(WORKER_KINDS, kind);
}

/** Former names still accepted, each with a deprecation warning at start (docs/operations.md). */
export const DEPRECATED_WORKER_KINDS: Readonly<Record<string, WorkerKind>> = { notifications: 'webhooks' };

/** The worker kind a name stands for (a former name too), and the former name if one was used. */
export function resolveWorkerKind(name: string): { kind: WorkerKind; deprecated: string | null } | null {
  if (isWorkerKind(name)) return { kind: name, deprecated: null };
  const kind = Object.prototype.hasOwnProperty.call(DEPRECATED_WORKER_KINDS, name) ? DEPRECATED_WORKER_KINDS[name] : undefined;
  return kind ? { kind, deprecated: name } : null;
}

export async function startWorkers(runtime: Runtime, kinds: readonly WorkerKind[]): Promise<void> {
  for (const kind of kinds) {
    await WORKER_KINDS[kind](runtime);
    runtime.log.info({ kind }, `worker '${kind}' started`);
  }
}
