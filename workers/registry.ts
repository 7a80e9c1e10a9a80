import type { Runtime } from '../shared/runtime/runtime';

/**
 * Every worker kind; `npm run start:worker -- <kind>[,<kind>…]` runs one or several in one process,
 * `npm start` runs them all (grouped: services/supervisor/roles.ts). Each entry loads its module only
 * when that kind starts, so a process carries the code of the kinds it runs and no more (the label
 * renderers stay out of the sorting worker, the sorting machines out of the pipeline process).
 */
export const WORKER_KINDS = {
  sorting: async (runtime: Runtime) => (await import('./sorting/sorting.worker')).startSortingWorker(runtime),
  sweeper: async (runtime: Runtime) => (await import('./sweeper/sweeper.worker')).startSweeperWorker(runtime),
  outbox: async (runtime: Runtime) => (await import('./outbox/outbox.worker')).startOutboxWorker(runtime),
  webhooks: async (runtime: Runtime) => (await import('./webhooks/webhooks.worker')).startWebhooksWorker(runtime),
  audit: async (runtime: Runtime) => (await import('./audit/audit.worker')).startAuditWorker(runtime),
  stats: async (runtime: Runtime) => (await import('./stats/stats.worker')).startStatsWorker(runtime),
  labels: async (runtime: Runtime) => (await import('./labels/labels.worker')).startLabelsWorker(runtime),
  lights: async (runtime: Runtime) => (await import('./lights/lights.worker')).startLightsWorker(runtime),
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

/**
 * The kinds a process is asked to run: `outbox,audit` or `outbox audit` (each a kind or a former name),
 * in the order given, each once. Unknown names are returned apart, for the usage message.
 */
export function parseWorkerKinds(args: readonly string[]): { kinds: WorkerKind[]; deprecated: { name: string; kind: WorkerKind }[]; unknown: string[] } {
  const kinds: WorkerKind[] = [];
  const deprecated: { name: string; kind: WorkerKind }[] = [];
  const unknown: string[] = [];
  for (const name of args.flatMap((a) => a.split(',')).map((n) => n.trim()).filter(Boolean)) {
    const resolved = resolveWorkerKind(name);
    if (!resolved) unknown.push(name);
    else {
      if (resolved.deprecated) deprecated.push({ name, kind: resolved.kind });
      if (!kinds.includes(resolved.kind)) kinds.push(resolved.kind);
    }
  }
  return { kinds, deprecated, unknown };
}

export async function startWorkers(runtime: Runtime, kinds: readonly WorkerKind[]): Promise<void> {
  for (const kind of kinds) {
    await WORKER_KINDS[kind](runtime);
    runtime.log.info({ kind }, `worker '${kind}' started`);
  }
}
