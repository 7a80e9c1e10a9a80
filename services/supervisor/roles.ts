import os from 'node:os';
import type { AppConfig } from '../../shared/config/config';

/**
 * The processes `npm start` runs, in start order; they stop in the reverse order (the API first, so no
 * new command arrives while the workers finish theirs). A new worker kind is one entry here (and one in
 * workers/registry.ts, which test/unit/supervisor-roles.test.ts checks against this list).
 */
export interface RoleSpec {
  /** Name in the supervisor's log lines. */
  role: string;
  /** Entry point relative to the project root, without extension (.ts under tsx, .js in dist/). */
  entry: string;
  args: string[];
  /** How many processes of this role. */
  count(config: AppConfig): number;
}

/** One sorting worker per core unless SORTING_WORKERS says otherwise. */
export function sortingWorkerCount(config: AppConfig): number {
  return config.SORTING_WORKERS > 0 ? config.SORTING_WORKERS : os.availableParallelism();
}

export const ROLES: readonly RoleSpec[] = [
  { role: 'webhooks', entry: 'workers/main', args: ['webhooks'], count: () => 1 },
  { role: 'audit', entry: 'workers/main', args: ['audit'], count: () => 1 },
  { role: 'stats', entry: 'workers/main', args: ['stats'], count: () => 1 },
  { role: 'labels', entry: 'workers/main', args: ['labels'], count: () => 1 },
  // The light gateway: one per deployment (docs/lights.md).
  { role: 'lights', entry: 'workers/main', args: ['lights'], count: () => 1 },
  { role: 'outbox', entry: 'workers/main', args: ['outbox'], count: () => 1 },
  { role: 'sorting', entry: 'workers/main', args: ['sorting'], count: sortingWorkerCount },
  { role: 'sweeper', entry: 'workers/main', args: ['sweeper'], count: () => 1 },
  { role: 'api', entry: 'services/api/main', args: [], count: (c) => c.API_PROCESSES },
];
