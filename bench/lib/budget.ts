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

export interface Goal {
  goal: string;
  measured: string;
  met: boolean;
}

/** The conditions every figure is measured under: the machine as it is, or with one core kept busy beside the service. */
export type Condition = 'quiet' | 'busy';

/** What goals() reads of a service step (bench/bad-day.ts's steps carry these and more). */
export interface GoalStep {
  step: string;
  pairsPerSecond: number;
  fiveXx: number;
  scan: { p50: number };
  scanP99All: number;
  reads: { p50: number; p99: number };
  readyz: { p99: number };
  /** /readyz on the health listener (HEALTH_PORT), where docs/operations.md points balancers' and orchestrators' probes. */
  readyzHealthPort: { p99: number; notReady: number };
  every: { n: number; within1s: number; maxMs: number; noAnswer: number };
  /** Scans the step could not send because a wall's tote ran out (it offered less than its rate). */
  scansNotSent?: number;
}

/**
 * The goals, checked against one condition's run (for the record; nothing asserts them): every ratio
 * against the skeleton and the floor measured under the same condition. The 100 pairs/s bound is 25 ms
 * quiet and 100 ms busy; the read of a wall's view is a goal on the quiet machine only.
 */
export function goals(
  condition: Condition,
  skeleton: { pairsPerSecond: number },
  steps: GoalStep[],
  floor: { reference: { p50Ms: number } } | null,
  comparison: RoleComparison[],
): Goal[] {
  const out: Goal[] = [];
  const step = (name: string) => steps.find((x) => x.step === name);
  const total = comparison.find((r) => r.role === 'total');
  const postgres = comparison.find((r) => r.role === 'postgres');
  const closed = step('closed-60');
  if (closed && total && postgres) {
    out.push({ goal: 'CPU per pair, all roles ≤ 2× the skeleton', measured: `${total.service} vs ${total.skeleton} ms (${total.ratio}×)`, met: total.ratio !== null && total.ratio <= 2 });
    out.push({ goal: 'PostgreSQL CPU per pair ≤ 2× the skeleton', measured: `${postgres.service} vs ${postgres.skeleton} ms (${postgres.ratio}×)`, met: postgres.ratio !== null && postgres.ratio <= 2 });
    const r = closed.pairsPerSecond / skeleton.pairsPerSecond;
    out.push({ goal: 'closed loop ≥ 0.5× the skeleton pairs/s, 0 × 5xx', measured: `${closed.pairsPerSecond} vs ${skeleton.pairsPerSecond} pairs/s (${r.toFixed(2)}×), ${closed.fiveXx} × 5xx`, met: r >= 0.5 && closed.fiveXx === 0 });
  }
  for (const name of ['idle-1', 'idle-1-deep']) {
    const idle = step(name);
    if (idle && floor) out.push({ goal: `${name} scan p50 ≤ 2× the floor`, measured: `${idle.scan.p50} vs ${floor.reference.p50Ms} ms (${(idle.scan.p50 / floor.reference.p50Ms).toFixed(1)}×)`, met: idle.scan.p50 <= 2 * floor.reference.p50Ms });
  }
  const idle = step('idle-1');
  if (idle && condition === 'quiet') out.push({ goal: 'GET /walls/{id} ≤ 2 ms (p50, idle-1)', measured: `p50 ${idle.reads.p50} ms, p99 ${idle.reads.p99} ms`, met: idle.reads.p50 <= 2 });
  const at100 = step('open-100/s');
  const bound = condition === 'quiet' ? 25 : 100;
  // A wall whose tote ran out offered nothing more: the step did not offer its rate, and is no measure of the goal.
  const notSent = (st: GoalStep) => (st.scansNotSent ? `, ${st.scansNotSent} scans not sent (a wall's tote ran out)` : '');
  if (at100) {
    out.push({
      goal: `100 pairs/s offered: p99 ≤ ${bound} ms, 0 × 5xx`,
      measured: `p99 ${at100.scanP99All} ms, ${at100.fiveXx} × 5xx${notSent(at100)}`,
      met: at100.scanP99All <= bound && at100.fiveXx === 0 && !at100.scansNotSent,
    });
  }
  const at300 = step('open-300/s');
  if (at300) {
    const e = at300.every;
    out.push({
      // The probe a balancer or an orchestrator sends goes to the health listener (docs/operations.md,
      // "Health"); /readyz on PORT, behind the devices' connections, is reported beside it.
      goal: '300 pairs/s offered: every answer within 1 s, none unanswered, /readyz p99 ≤ 50 ms (the health listener)',
      measured: `${e.n - e.within1s} of ${e.n} over 1 s or none, slowest ${e.maxMs} ms, ${e.noAnswer} unanswered, /readyz p99 ${at300.readyzHealthPort.p99} ms on HEALTH_PORT, ${at300.readyzHealthPort.notReady} not 200 (${at300.readyz.p99} ms on PORT) (${at300.pairsPerSecond} pairs/s done${notSent(at300)})`,
      // A probe refused or answered 503 is fast too: only a ready answer counts.
      met: e.n > 0 && e.within1s === e.n && e.noAnswer === 0 && at300.readyzHealthPort.p99 <= 50 && at300.readyzHealthPort.notReady === 0 && !at300.scansNotSent,
    });
  }
  return out;
}
