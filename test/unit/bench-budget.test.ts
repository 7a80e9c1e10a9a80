import { pooledSkeleton, type SkeletonRun } from '../../bench/skeleton/skeleton-run';
import { pooledFloor, type FloorMeasure } from '../../bench/budget-run';
import { commandsPerPair, commandTotals, compareRoles, goals, parseCommandStats, rolesPerPair, statementsPerPair, type RoleCpu } from '../../bench/lib/budget';

/** The per-pair budget's arithmetic (bench/lib/budget.ts), which `npm run bench` prints and docs/benchmarks.md carries. */
describe('the per-pair budget', () => {
  it('puts CPU per pair by role, the PostgreSQL backends of every service role together and the bench’s own out', () => {
    const cpu = rolesPerPair(
      { supervisor: 50, api: 2000, sorting: 1000, pipeline: 500, redis: 300, bench: 9000, mosquitto: 10, 'postgres:api': 200, 'postgres:sorting': 1500, 'postgres:pipeline': 300, 'postgres:other': 4000 },
      1000,
    );
    expect(cpu.perPair).toEqual({ api: 2, sorting: 1, pipeline: 0.5, postgres: 2, redis: 0.3 });
    expect(cpu.postgresByRole).toEqual({ api: 0.2, sorting: 1.5, pipeline: 0.3 });
    expect(cpu.total).toBe(5.8);
  });

  it('compares the service with the skeleton role by role, with no ratio where the skeleton spends nothing', () => {
    const service = rolesPerPair({ api: 2000, sorting: 1000, pipeline: 500, redis: 300, 'postgres:sorting': 2000 }, 1000);
    const skeleton = rolesPerPair({ api: 500, sorting: 400, redis: 200, 'postgres:sorting': 400 }, 1000);
    const rows = compareRoles(service, skeleton);
    expect(rows.map((r) => r.role)).toEqual(['api', 'sorting', 'pipeline', 'postgres', 'redis', 'total']);
    expect(rows.find((r) => r.role === 'api')).toEqual({ role: 'api', service: 2, skeleton: 0.5, ratio: 4, extra: 1.5 });
    expect(rows.find((r) => r.role === 'pipeline')).toMatchObject({ ratio: null, extra: 0.5 });
    expect(rows.find((r) => r.role === 'total')).toMatchObject({ service: 5.8, skeleton: 1.5, ratio: 3.87 });
  });

  it('gives no figure per pair for a step that completed no pair', () => {
    expect(rolesPerPair({ api: 100 }, 0).perPair.api).toBeNaN();
  });

  it('turns pg_stat_statements totals into calls, time and buffers per pair, the costliest first', () => {
    const rows = statementsPerPair(
      [
        { statement: 'wall-view', calls: 100, totalMs: 50, buffers: 5000 },
        { statement: 'apply-wall-changes', calls: 2000, totalMs: 150, buffers: 280_000 },
      ],
      1000,
    );
    expect(rows[0]).toEqual({ statement: 'apply-wall-changes', callsPerPair: 2, msPerPair: 0.15, meanMs: 0.075, buffersPerPair: 280, buffersPerCall: 140, share: 75 });
    expect(rows[1]).toMatchObject({ statement: 'wall-view', callsPerPair: 0.1, msPerPair: 0.05, meanMs: 0.5, buffersPerCall: 50, share: 25 });
  });

  it('reads INFO commandstats and counts what changed per pair, leaving out the readings’ own INFO', () => {
    const before = parseCommandStats('# Commandstats\r\ncmdstat_evalsha:calls=10,usec=500,usec_per_call=50.00,rejected_calls=0,failed_calls=0\r\ncmdstat_info:calls=3,usec=30,usec_per_call=10.00\r\n');
    const after = parseCommandStats(
      '# Commandstats\r\ncmdstat_evalsha:calls=410,usec=20500,usec_per_call=50.00,rejected_calls=0,failed_calls=0\r\ncmdstat_publish:calls=200,usec=1000,usec_per_call=5.00\r\ncmdstat_info:calls=5,usec=50,usec_per_call=10.00\r\ncmdstat_ping:calls=0,usec=0\r\n',
    );
    expect(before.get('evalsha')).toEqual({ calls: 10, usec: 500 });
    const list = commandsPerPair(before, after, 100);
    expect(list).toEqual([
      { command: 'evalsha', calls: 400, callsPerPair: 4, usecPerPair: 200 },
      { command: 'publish', calls: 200, callsPerPair: 2, usecPerPair: 10 },
    ]);
    expect(commandTotals(list)).toEqual({ callsPerPair: 6, usecPerPair: 210 });
  });
});

describe('the goals beside the skeleton', () => {
  // Only the fields goals() reads; the rest of a step does not matter here.
  const step = (over: Record<string, unknown>) => ({ scan: { p50: 5 }, reads: { p50: 1.5, p99: 3 }, scanP99All: 20, fiveXx: 0, pairsPerSecond: 100, readyz: { p99: 10 }, readyzHealthPort: { p99: 8, notReady: 0 }, every: { n: 1000, within1s: 1000, maxMs: 900, noAnswer: 0 }, ...over });
  const skeleton = { pairsPerSecond: 180 };
  const roles = (service: RoleCpu, sk: RoleCpu) => compareRoles(service, sk);

  it('checks each goal against the skeleton and the floor of the same run', () => {
    const service = rolesPerPair({ api: 2000, sorting: 1000, 'postgres:sorting': 1800, redis: 400 }, 1000);
    const sk = rolesPerPair({ api: 1000, sorting: 800, 'postgres:sorting': 1000, redis: 400 }, 1000);
    const steps = [step({ step: 'idle-1', scan: { p50: 9 } }), step({ step: 'idle-1-deep', scan: { p50: 8 } }), step({ step: 'open-100/s', scanP99All: 24 }), step({ step: 'open-300/s' }), step({ step: 'closed-60', pairsPerSecond: 95 })];
    const floor = { reference: { p50Ms: 4.4, cpuPerPairMs: 10 }, pgP50: 3.4, queueP50: 1 };
    const out = goals('quiet', skeleton, steps as never, floor, roles(service, sk));
    expect(out.map((g) => [g.goal.split(' ')[0], g.met])).toEqual([
      ['CPU', true], // 5.2 vs 3.2 ms: 1.63×
      ['PostgreSQL', true], // 1.8 vs 1.0: 1.8×
      ['closed', true], // 95 vs 180: 0.53×
      ['idle-1', false], // 9 ms vs 2 × 4.4
      ['idle-1-deep', true], // 8 ms vs 2 × 4.4
      ['GET', true],
      ['100', true],
      ['300', true],
    ]);
  });

  it('holds a busy run to 100 ms at 100 pairs/s, leaves the read of a wall out, and misses a closed loop with a 5xx', () => {
    const service = rolesPerPair({ api: 1000 }, 1000);
    const steps = [step({ step: 'idle-1' }), step({ step: 'open-100/s', scanP99All: 90 }), step({ step: 'closed-60', pairsPerSecond: 95, fiveXx: 1 })];
    const quiet = goals('quiet', skeleton, steps as never, null, roles(service, service));
    const busy = goals('busy', skeleton, steps as never, null, roles(service, service));
    expect(quiet.find((g) => g.goal.startsWith('100'))!.met).toBe(false);
    expect(busy.find((g) => g.goal.startsWith('100'))!.met).toBe(true);
    expect(busy.some((g) => g.goal.startsWith('GET'))).toBe(false);
    expect(quiet.find((g) => g.goal.startsWith('closed'))!.met).toBe(false);
  });

  it('misses the overload goal when one answer took over 1 s or none came', () => {
    const service = rolesPerPair({ api: 1000 }, 1000);
    const late = goals('quiet', skeleton, [step({ step: 'open-300/s', every: { n: 1000, within1s: 999, maxMs: 1100, noAnswer: 0 } })] as never, null, roles(service, service));
    const unanswered = goals('quiet', skeleton, [step({ step: 'open-300/s', every: { n: 1000, within1s: 999, maxMs: 900, noAnswer: 1 } })] as never, null, roles(service, service));
    expect(late.at(-1)!.met).toBe(false);
    expect(unanswered.at(-1)!.met).toBe(false);
  });

  it('misses an open step that could not offer its rate because a wall ran out of units, and says so', () => {
    const service = rolesPerPair({ api: 1000 }, 1000);
    const of = (notSent: number) =>
      goals('quiet', skeleton, [step({ step: 'open-100/s', scansNotSent: notSent }), step({ step: 'open-300/s', scansNotSent: notSent })] as never, null, roles(service, service));
    const full = of(0);
    const short = of(153);
    expect(full.map((g) => g.met)).toEqual([true, true]);
    expect(short.map((g) => g.met)).toEqual([false, false]);
    for (const g of short) expect(g.measured).toContain("153 scans not sent (a wall's tote ran out)");
    for (const g of full) expect(g.measured).not.toContain('not sent');
  });

  it('holds /readyz to 50 ms on the health listener, where probes go, and reports PORT beside it', () => {
    const service = rolesPerPair({ api: 1000 }, 1000);
    const at = (health: number, port: number, notReady = 0) =>
      goals('quiet', skeleton, [step({ step: 'open-300/s', readyz: { p99: port }, readyzHealthPort: { p99: health, notReady } })] as never, null, roles(service, service)).at(-1)!;
    expect(at(40, 400).met).toBe(true);
    expect(at(60, 20).met).toBe(false);
    // Refused or not ready is no answer to count as fast.
    expect(at(5, 5, 1).met).toBe(false);
    expect(at(40, 400).measured).toContain('/readyz p99 40 ms on HEALTH_PORT, 0 not 200 (400 ms on PORT)');
  });
});

describe('the skeleton run before and after the service', () => {
  const run = (pairs: number, seconds: number, cpuMs: Record<string, number>, loadAvg1m: number, wokenCount: Record<string, number> = {}) =>
    ({ pairs, seconds, pairsPerSecond: pairs / seconds, cpuMs, cpu: rolesPerPair(cpuMs, pairs), wokenCount, wakeups: rolesPerPair(wokenCount, pairs), errors: 0, loadAvg1m }) as unknown as SkeletonRun;

  it('pools both closed loops: CPU per pair over all their pairs, pairs per second over all their seconds, each round listed', () => {
    const before = run(1000, 5, { api: 500, sorting: 300, redis: 200, 'postgres:sorting': 600 }, 3, { api: 4000, 'postgres:sorting': 2000, 'postgres:other': 50 });
    const after = run(500, 5, { api: 400, sorting: 300, redis: 100, 'postgres:sorting': 400 }, 4, { api: 2500, 'postgres:sorting': 1000 });
    const pooled = pooledSkeleton([before, after]);
    // Wake-ups pool as CPU does: over all the pairs, the bench's own backends left out.
    expect(pooled.wakeups.perPair.api).toBe(4.33);
    expect(pooled.wakeups.perPair.postgres).toBe(2);
    expect(pooled.wakeups.total).toBe(6.33);
    expect(pooled.pairs).toBe(1500);
    expect(pooled.pairsPerSecond).toBe(150);
    expect(pooled.cpu.perPair.api).toBe(0.6);
    expect(pooled.cpu.total).toBe(1.87);
    expect(pooled.rounds).toEqual([
      { pairsPerSecond: 200, cpuPerPairMs: 1.6, loadAvg1m: 3 },
      { pairsPerSecond: 100, cpuPerPairMs: 2.4, loadAvg1m: 4 },
    ]);
  });

  it('leaves a single run as it is', () => {
    const only = run(1000, 5, { api: 500 }, 3);
    expect(pooledSkeleton([only])).toBe(only);
  });
});

describe('the floor measured before and after the service', () => {
  const measure = (pgSamples: number[], queueSamples: number[], cpuPerPairMs: number, loadAvg1m: number): FloorMeasure => {
    const pgP50 = [...pgSamples].sort((a, b) => a - b)[Math.floor(pgSamples.length / 2)]!;
    const queueP50 = [...queueSamples].sort((a, b) => a - b)[Math.floor(queueSamples.length / 2)]!;
    const hop = { cpuUs: 30, wallUs: 50, oneCore: null };
    return { floor: { reference: { p50Ms: pgP50 + queueP50, cpuPerPairMs }, pgP50, queueP50, hop }, pgSamples, queueSamples, loadAvg1m };
  };

  it('takes each part’s p50 over both measurements’ samples, the mean CPU per pair and the first hop, each round listed', () => {
    const before = measure([1, 1], [0.5, 0.5], 4, 2);
    const after = measure([3, 3, 3], [1, 1, 1], 6, 5);
    const pooled = pooledFloor([before, after]);
    expect(pooled.pgP50).toBe(3);
    expect(pooled.queueP50).toBe(1);
    expect(pooled.reference).toEqual({ p50Ms: 4, cpuPerPairMs: 5 });
    expect(pooled.hop).toBe(before.floor.hop);
    expect(pooled.rounds).toEqual([
      { p50Ms: 1.5, cpuPerPairMs: 4, loadAvg1m: 2 },
      { p50Ms: 4, cpuPerPairMs: 6, loadAvg1m: 5 },
    ]);
  });

  it('leaves a single measurement as it is', () => {
    const only = measure([1, 2, 3], [1], 4, 2);
    expect(pooledFloor([only])).toBe(only.floor);
  });
});
