/**
 * The process groups, in the order `npm start` starts their processes (they stop in the reverse order,
 * after the API). Each is one role of services/supervisor/roles.ts, derived from here: a new group is a
 * name here, and its settings there only if it needs other than one process.
 */
export const PROCESS_GROUPS = ['pipeline', 'sorting'] as const;
export type ProcessGroup = (typeof PROCESS_GROUPS)[number];

/**
 * The worker kinds, one line each: its name and the process group `npm start` runs it in. Read by the
 * supervisor (its roles) and by the workers' entry point (which kinds a process was asked for). The
 * kinds' code is loaded by workers/registry.ts; an event consumer's kind is its line in
 * workers/event-consumers.ts. test/unit/worker-kinds.test.ts checks the registry, the consumers and
 * docker-compose.yml against it.
 */
export const WORKER_KIND_GROUPS = {
  sorting: 'sorting',
  outbox: 'pipeline',
  audit: 'pipeline',
  stats: 'pipeline',
  labels: 'pipeline',
  lights: 'pipeline',
  webhooks: 'pipeline',
  sweeper: 'pipeline',
} as const satisfies Record<string, ProcessGroup>;

export type WorkerKind = keyof typeof WORKER_KIND_GROUPS;

export const WORKER_KIND_NAMES = Object.keys(WORKER_KIND_GROUPS) as WorkerKind[];

/** The kinds of a process group, in the table's order (their start order in that process). */
export function kindsOfGroup(group: ProcessGroup): WorkerKind[] {
  return WORKER_KIND_NAMES.filter((k) => WORKER_KIND_GROUPS[k] === group);
}

/** Kinds that run the workflow commands on the plain-SQL pool: their process gives it most of its connections (poolShares). */
export const COMMAND_POOL_KINDS: ReadonlySet<WorkerKind> = new Set<WorkerKind>(['sorting']);

export function isWorkerKind(kind: string): kind is WorkerKind {
  return (WORKER_KIND_NAMES as readonly string[]).includes(kind);
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
