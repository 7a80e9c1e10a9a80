import os from 'node:os';
import type { AppConfig } from '../../shared/config/config';
import { kindsOfGroup, PROCESS_GROUPS, type ProcessGroup, type WorkerKind } from '../../shared/runtime/worker-kinds';

/**
 * The processes `npm start` runs, in start order; they stop in the reverse order (the API first, so no
 * new command arrives while the workers finish theirs). A worker kind's role is its process group in
 * shared/runtime/worker-kinds.ts (test/unit/worker-kinds.test.ts checks that every kind has exactly one).
 */
export interface RoleSpec {
  /** Name in the supervisor's log lines. */
  role: string;
  /** Entry point relative to the project root, without extension (.ts under tsx, .js in dist/). */
  entry: string;
  /** The worker kinds the process runs (one Runtime for all: workers/main.ts); none for the API. */
  kinds?: readonly WorkerKind[];
  /** How many processes of this role. */
  count(config: AppConfig): number;
  /** Its processes listen on one port (PORT): several of them are started as node cluster workers (supervisor.ts). */
  sharesPort?: boolean;
  /** Node flags of its processes, after the supervisor's own. */
  nodeFlags?: readonly string[];
  /** Scheduling niceness of its processes (below 0: more CPU than the others), where the system allows it. */
  niceness?: number;
  /** Settings its processes start with unless the operator set them. */
  env?: Readonly<Record<string, string>>;
}

/**
 * One sorting worker per two cores unless SORTING_WORKERS says otherwise. On a small host the sorting
 * worker shares its cores with the API, PostgreSQL and Redis: a second process there adds memory and
 * context switches, not capacity (docs/operations.md, "Processes and scaling").
 */
export function sortingWorkerCount(config: AppConfig): number {
  return config.SORTING_WORKERS > 0 ? config.SORTING_WORKERS : Math.max(1, Math.floor(os.availableParallelism() / 2));
}

/**
 * The kinds that need no core of their own: the outbox relay, the event consumers (the light gateway
 * among them: one per deployment, docs/lights.md), webhook deliveries and the session sweep wait on
 * PostgreSQL, Redis, the broker and receivers far more than they compute, so under `npm start` they
 * share one process (one copy of the code, the ORM and the Redis client instead of seven).
 */
export const PIPELINE_KINDS: readonly WorkerKind[] = kindsOfGroup('pipeline');

/** What a worker role sets beyond its kinds; a group not named here is one process with the defaults. */
const GROUP_SETTINGS: { [G in ProcessGroup]?: Pick<RoleSpec, 'count' | 'nodeFlags' | 'niceness'> } = {
  // A young generation of 4 MB instead of V8's default 16: the pipeline's garbage is short-lived batches,
  // and the process stays about 25 MB smaller (docs/benchmarks.md, "Footprint of npm start").
  pipeline: { count: () => 1, nodeFlags: ['--max-semi-space-size=4'] },
  sorting: { count: sortingWorkerCount },
};

/**
 * V8 flags of every process `npm start` runs (docs/operations.md, "Memory"). No pretenuring: V8
 * otherwise learns from a burst (sign-ins, an upload, the first minute's backlog) that a request's
 * objects outlive a young collection and from then on allocates them in the old generation, which each
 * young collection must then scan for references into the young one. At 100 pairs/s the API's young
 * collections took 10–25 ms instead of 4–6, each holding every request in flight. (What made the API's
 * requests outlive them was Express swapping their prototypes, which services/api/http/express-server.ts
 * now avoids; the flag stays for other bursts.)
 */
export const EVERY_PROCESS_NODE_FLAGS: readonly string[] = ['--no-allocation-site-pretenuring'];

/** One worker role per process group (shared/runtime/worker-kinds.ts), in its start order, then the API. */
export const ROLES: readonly RoleSpec[] = [
  ...PROCESS_GROUPS.map((group) => ({
    role: group,
    entry: 'workers/main',
    kinds: kindsOfGroup(group),
    count: () => 1,
    ...GROUP_SETTINGS[group],
    nodeFlags: [...EVERY_PROCESS_NODE_FLAGS, ...(GROUP_SETTINGS[group]?.nodeFlags ?? [])],
  })),
  // The front door gets three times the CPU weight of a PostgreSQL backend or a worker: on a small host
  // where they all share the cores, an API starved by busy database backends takes one new connection
  // per turn of its event loop and lets thousands wait, /readyz among them; answering (a 503 is an
  // answer) must not wait for the work it sheds (docs/operations.md, "Connections").
  // Its /readyz waits (10 s at most) until the sorting workers, started beside it, hold every command
  // partition: the first commands after it are then answered at once, not after the workers' start.
  {
    role: 'api',
    entry: 'services/api/main',
    count: (c) => c.API_PROCESSES,
    sharesPort: true,
    niceness: -5,
    nodeFlags: EVERY_PROCESS_NODE_FLAGS,
    env: { READYZ_WAITS_FOR_PARTITIONS_MS: '10000' },
  },
];

/** The command-line arguments of a role's process. */
export function roleArgs(spec: RoleSpec): string[] {
  return spec.kinds?.length ? [spec.kinds.join(',')] : [];
}
