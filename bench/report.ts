import type { StepFigures } from './load';
import type { LatencySummary } from './stats';

export interface FloorFigures {
  pg: LatencySummary;
  queue: LatencySummary;
  /** pg.p50 + queue.p50: what a scan through this design cannot beat. */
  p50Sum: number;
  /** The same PG transaction with named (prepared) statements: not part of the floor, a what-if. */
  pgPrepared: LatencySummary;
  /** CPU ms per floor operation: what the same work costs without the service's layers. */
  cpuMs: {
    pgTransaction: { postgres: number; client: number };
    pgTransactionPrepared: { postgres: number; client: number };
    queueRoundTrip: { redis: number; client: number };
  };
}

export interface TargetCheck {
  target: string;
  measured: string;
  met: boolean | null;
}

export interface MemoryFigures {
  /** The API's node process (tsx's child), MB. */
  apiPeakMb: number | null;
  apiEndMb: number | null;
  workerPeakMb: number | null;
  workerEndMb: number | null;
  /** The tsx wrapper processes (not part of a built deployment), MB each at peak. */
  wrapperPeakMb: number | null;
}

const MB = 1024 * 1024;
export const toMb = (bytes: number | undefined): number | null => (bytes === undefined ? null : Math.round((bytes / MB) * 10) / 10);

/** The targets, checked against this run. */
export function checkTargets(floor: FloorFigures, steps: StepFigures[], memory: MemoryFigures): TargetCheck[] {
  const checks: TargetCheck[] = [];
  const single = steps.find((s) => s.kind === 'closed' && s.sorters === 1);
  if (single) {
    const ratio = single.scan.latency.p50 / floor.p50Sum;
    checks.push({
      target: 'scan p50 (1 sorter) within 2× the floor (bare PG transaction p50 + bare queue round trip p50)',
      measured: `${single.scan.latency.p50} ms vs floor ${floor.p50Sum} ms (${ratio.toFixed(2)}×; ${(single.scan.latency.p50 / floor.pg.p50).toFixed(1)}× the PG floor alone)`,
      met: ratio <= 2,
    });
  }
  const at100 = steps.find((s) => s.kind === 'open' && s.offeredRate === 100);
  if (at100) {
    const errors = Object.values(at100.scan.errors).reduce((a, b) => a + b, 0);
    checks.push({
      target: 'scan p99 ≤ 25 ms at 100 scans/s offered',
      measured: `p99 ${at100.scan.latency.p99} ms (all answers ${at100.scan.p99All} ms), ${errors} errors`,
      met: at100.scan.p99All <= 25 && errors === 0,
    });
  }
  const at500 = steps.find((s) => s.kind === 'open' && s.offeredRate === 500);
  if (at500) {
    checks.push({
      target: '≥ 500 scans/s sustained with p99 ≤ 50 ms',
      measured: `${at500.scan.throughput} scans/s achieved of 500 offered, p99 ${at500.scan.p99All} ms`,
      met: at500.scan.throughput >= 490 && at500.scan.p99All <= 50,
    });
  }
  if (memory.apiPeakMb !== null) {
    checks.push({ target: 'API resident memory < 200 MB', measured: `peak ${memory.apiPeakMb} MB (VmRSS of the API's node process)`, met: memory.apiPeakMb < 200 });
  }
  return checks;
}

const f = (v: number) => (Number.isFinite(v) ? (v >= 100 ? v.toFixed(0) : v.toFixed(1)) : '-');

export function printSummary(floor: FloorFigures, steps: StepFigures[], memory: MemoryFigures, targets: TargetCheck[]): void {
  console.log('\nFloor (sequential, one connection):');
  console.log(`  bare PG scan-shaped transaction   p50 ${f(floor.pg.p50)}  p95 ${f(floor.pg.p95)}  p99 ${f(floor.pg.p99)} ms  (n=${floor.pg.n})`);
  console.log(`  bare BullMQ add → reply           p50 ${f(floor.queue.p50)}  p95 ${f(floor.queue.p95)}  p99 ${f(floor.queue.p99)} ms  (n=${floor.queue.n})`);
  console.log(`  floor p50 (sum)                   ${f(floor.p50Sum)} ms`);
  console.log(`  (what-if) PG, prepared statements p50 ${f(floor.pgPrepared.p50)}  p95 ${f(floor.pgPrepared.p95)}  p99 ${f(floor.pgPrepared.p99)} ms`);
  const c = floor.cpuMs;
  console.log(
    `  CPU per operation: PG transaction ${c.pgTransaction.postgres} ms in PostgreSQL + ${c.pgTransaction.client} ms in node-postgres (prepared: ${c.pgTransactionPrepared.postgres} + ${c.pgTransactionPrepared.client}); queue round trip ${c.queueRoundTrip.redis} ms in Redis + ${c.queueRoundTrip.client} ms in BullMQ/ioredis`,
  );

  const header = `${'step'.padEnd(12)}${'sorters'.padStart(8)}${'offered'.padStart(8)} │${'scans/s'.padStart(9)}${'p50'.padStart(7)}${'p95'.padStart(7)}${'p99'.padStart(7)}${'p99*'.padStart(7)} │${'conf/s'.padStart(8)}${'p50'.padStart(7)}${'p95'.padStart(7)}${'p99'.padStart(7)} │${'load'.padStart(6)} │ errors`;
  console.log(`\n${header}\n${'─'.repeat(header.length + 10)}`);
  for (const s of steps) {
    const errors = [...Object.entries(s.scan.errors).map(([k, v]) => `scan ${k}×${v}`), ...Object.entries(s.confirm.errors).map(([k, v]) => `confirm ${k}×${v}`)].join(', ') || '0';
    console.log(
      `${s.step.padEnd(12)}${String(s.sorters).padStart(8)}${(s.offeredRate === null ? '-' : String(s.offeredRate)).padStart(8)} │${f(s.scan.throughput).padStart(9)}${f(s.scan.latency.p50).padStart(7)}${f(s.scan.latency.p95).padStart(7)}${f(s.scan.latency.p99).padStart(7)}${f(s.scan.p99All).padStart(7)} │${f(s.confirm.throughput).padStart(8)}${f(s.confirm.latency.p50).padStart(7)}${f(s.confirm.latency.p95).padStart(7)}${f(s.confirm.latency.p99).padStart(7)} │${(s.loadAvg1m === undefined ? '-' : s.loadAvg1m.toFixed(1)).padStart(6)} │ ${errors}`,
    );
  }
  console.log('  (ms; p99* = scan p99 over every answer, failures included; open-loop scan latency counts from the planned send time;\n   load = the machine’s 1-minute load average at the end of the step)');
  console.log('\nCPU time per scan (with its confirm), ms, and memory per step:');
  for (const st of steps) {
    if (!st.cpu) continue;
    const per = Object.entries(st.cpu.perScanMs).map(([k, v]) => `${k} ${f(v)}`).join(' · ');
    const cores = Object.entries(st.cpu.totalMs).reduce((a, [k, v]) => a + (k === 'bench' ? 0 : v), 0) / 1000 / st.seconds;
    console.log(`  ${st.step.padEnd(12)} ${per} · service ${cores.toFixed(2)} cores busy · RSS peak API ${st.rssPeakMb?.api ?? '-'} MB (heap ${st.apiMemoryAtEndMb?.heapUsed ?? '-'} used of ${st.apiMemoryAtEndMb?.heapTotal ?? '-'} at the end), worker ${st.rssPeakMb?.worker ?? '-'} MB`);
  }
  console.log(
    `\nMemory (VmRSS peak / end): API ${memory.apiPeakMb ?? '-'} / ${memory.apiEndMb ?? '-'} MB · worker ${memory.workerPeakMb ?? '-'} / ${memory.workerEndMb ?? '-'} MB · tsx wrapper ${memory.wrapperPeakMb ?? '-'} MB`,
  );
  console.log('\nTargets:');
  for (const t of targets) console.log(`  ${t.met === null ? '?' : t.met ? 'MET ' : 'MISS'}  ${t.target}: ${t.measured}`);
}
