/*
 * The per-pair budget (docs/benchmarks.md, "The per-pair budget"): CPU per scan+confirm pair by role,
 * the service's against the skeleton's of the same run, PostgreSQL statements and Redis commands per
 * pair. Pure arithmetic over what the meters read; test/unit/bench-budget.test.ts checks it.
 */

/** The roles both the service and the skeleton are measured by. */
export const BUDGET_ROLES = ['api', 'sorting', 'pipeline', 'postgres', 'redis'] as const;
export type BudgetRole = (typeof BUDGET_ROLES)[number];

export interface RoleCpu {
  /** CPU ms per pair of each role; `postgres` is every backend serving a role of the service (the bench's own are left out). */
  perPair: Record<BudgetRole, number>;
  /** The PostgreSQL backends by the role they serve (application_name). */
  postgresByRole: Record<string, number>;
  /** The sum of the roles. */
  total: number;
}

const round = (v: number, digits = 2) => {
  const f = 10 ** digits;
  return Math.round(v * f) / f;
};

/**
 * CPU ms used during a step (keys as bench/cpu-usage.ts's CpuMeter names them: a process role, `redis`,
 * `postgres:<role>` per backend group, `bench`, `postgres:other`) → per pair by budget role. The bench,
 * its own backends (`postgres:other`), the supervisor (idle between restarts) and a broker are not in the budget.
 */
export function rolesPerPair(cpuMs: Record<string, number>, pairs: number): RoleCpu {
  const per = (ms: number) => (pairs > 0 ? round(ms / pairs) : NaN);
  const postgresByRole: Record<string, number> = {};
  let postgres = 0;
  for (const [key, ms] of Object.entries(cpuMs)) {
    if (!key.startsWith('postgres:') || key === 'postgres:other') continue;
    postgresByRole[key.slice('postgres:'.length)] = per(ms);
    postgres += ms;
  }
  const perPair: Record<BudgetRole, number> = {
    api: per(cpuMs.api ?? 0),
    sorting: per(cpuMs.sorting ?? 0),
    pipeline: per(cpuMs.pipeline ?? 0),
    postgres: per(postgres),
    redis: per(cpuMs.redis ?? 0),
  };
  const total = per(BUDGET_ROLES.reduce((a, r) => a + (r === 'postgres' ? postgres : (cpuMs[r] ?? 0)), 0));
  return { perPair, postgresByRole, total };
}

export interface RoleComparison {
  role: BudgetRole | 'total';
  service: number;
  skeleton: number;
  /** service / skeleton; null when the skeleton spends nothing there (the pipeline). */
  ratio: number | null;
  /** The service's CPU beyond the skeleton's, ms per pair. */
  extra: number;
}

export function compareRoles(service: RoleCpu, skeleton: RoleCpu): RoleComparison[] {
  const row = (role: BudgetRole | 'total', a: number, b: number): RoleComparison => ({
    role,
    service: a,
    skeleton: b,
    ratio: b > 0 ? round(a / b) : null,
    extra: round(a - b),
  });
  return [...BUDGET_ROLES.map((r) => row(r, service.perPair[r], skeleton.perPair[r])), row('total', service.total, skeleton.total)];
}

export interface StatementTotals {
  statement: string;
  calls: number;
  totalMs: number;
  /** Shared buffers hit + read, all calls. */
  buffers: number;
}

export interface StatementBudget {
  statement: string;
  callsPerPair: number;
  msPerPair: number;
  meanMs: number;
  buffersPerPair: number;
  buffersPerCall: number;
  /** Share of all statement time. */
  share: number;
}

/** pg_stat_statements totals of a step → per pair, largest time per pair first. */
export function statementsPerPair(rows: StatementTotals[], pairs: number): StatementBudget[] {
  const all = rows.reduce((a, r) => a + r.totalMs, 0);
  return rows
    .map((r) => ({
      statement: r.statement,
      callsPerPair: pairs ? round(r.calls / pairs) : NaN,
      msPerPair: pairs ? round(r.totalMs / pairs, 3) : NaN,
      meanMs: r.calls ? round(r.totalMs / r.calls, 3) : NaN,
      buffersPerPair: pairs ? round(r.buffers / pairs, 1) : NaN,
      buffersPerCall: r.calls ? round(r.buffers / r.calls, 1) : NaN,
      share: all ? round((100 * r.totalMs) / all, 1) : NaN,
    }))
    .sort((a, b) => b.msPerPair - a.msPerPair);
}

export type CommandStats = Map<string, { calls: number; usec: number }>;

/** Redis `INFO commandstats` → calls and µs per command (`cmdstat_evalsha:calls=3,usec=40,…`). */
export function parseCommandStats(info: string): CommandStats {
  const out: CommandStats = new Map();
  for (const line of info.split(/\r?\n/)) {
    const m = /^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/.exec(line);
    if (m) out.set(m[1]!, { calls: Number(m[2]), usec: Number(m[3]) });
  }
  return out;
}

export interface CommandBudget {
  command: string;
  calls: number;
  callsPerPair: number;
  /** µs Redis spent in the command per pair (its own time, scripts' inner commands included in evalsha). */
  usecPerPair: number;
}

/** What changed between two `INFO commandstats` readings, per pair, most calls first; the readings' own INFO calls are left out. */
export function commandsPerPair(before: CommandStats, after: CommandStats, pairs: number): CommandBudget[] {
  const out: CommandBudget[] = [];
  for (const [command, a] of after) {
    if (command === 'info') continue;
    const b = before.get(command) ?? { calls: 0, usec: 0 };
    const calls = a.calls - b.calls;
    if (calls <= 0) continue;
    out.push({ command, calls, callsPerPair: pairs ? round(calls / pairs) : NaN, usecPerPair: pairs ? round((a.usec - b.usec) / pairs, 1) : NaN });
  }
  return out.sort((x, y) => y.calls - x.calls);
}

/** Sums of a command list: calls and µs per pair. */
export function commandTotals(list: CommandBudget[]): { callsPerPair: number; usecPerPair: number } {
  return { callsPerPair: round(list.reduce((a, c) => a + c.callsPerPair, 0)), usecPerPair: round(list.reduce((a, c) => a + c.usecPerPair, 0), 1) };
}
