import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { BenchHttp } from './http-client';
import { censusCycle, type BenchSorter } from './load';
import { pollUntil } from './service-processes';

interface QueryCounts {
  writtenAt: number;
  total: number;
  statements: Record<string, number>;
}

/** Asks a service's query counter (bench/query-counter.cjs) for its totals and waits for them. */
async function readQueryCounts(dir: string, pid: number | undefined): Promise<QueryCounts> {
  if (!pid) throw new Error('no process to count the queries of');
  const file = path.join(dir, `queries-${pid}.json`);
  const asked = Date.now();
  process.kill(pid, 'SIGUSR2');
  return pollUntil(
    `the query counts of process ${pid}`,
    async () => {
      if (!existsSync(file)) return undefined;
      const counts = JSON.parse(readFileSync(file, 'utf8')) as QueryCounts;
      return counts.writtenAt >= asked ? counts : undefined;
    },
    { timeoutMs: 10_000, intervalMs: 20 },
  );
}

function perCommand(before: QueryCounts, after: QueryCounts, n: number): PerCommand {
  const statements: Record<string, number> = {};
  for (const [text, count] of Object.entries(after.statements)) {
    const d = count - (before.statements[text] ?? 0);
    if (d > 0) statements[text] = Math.round((d / n) * 100) / 100;
  }
  return { total: Math.round(((after.total - before.total) / n) * 100) / 100, statements };
}

export interface PerCommand {
  total: number;
  statements: Record<string, number>;
}

export interface Census {
  scans: number;
  confirms: number;
  perScan: { api: PerCommand; worker: PerCommand };
  perConfirm: { api: PerCommand; worker: PerCommand };
}

/**
 * Statements per scan and per confirm, in the API and in the worker (BENCH_COUNT_QUERIES=1): n scans
 * by one sorter, then their confirms, between reads of the counters bench/query-counter.cjs keeps.
 */
export async function runCensus(
  http: BenchHttp,
  sorter: BenchSorter,
  dir: string,
  pids: { api: number | undefined; worker: number | undefined },
  say: (line: string) => void,
  n = 50,
): Promise<Census> {
  say(`[census] counting statements: ${n} scans, then their confirms, by one sorter`);
  const read = async () => ({ api: await readQueryCounts(dir, pids.api), worker: await readQueryCounts(dir, pids.worker) });
  const before = await read();
  let mid = before;
  const done = await censusCycle(http, sorter, n, async () => {
    mid = await read();
  });
  const after = await read();
  const census: Census = {
    scans: done.scans,
    confirms: done.confirms,
    perScan: { api: perCommand(before.api, mid.api, done.scans), worker: perCommand(before.worker, mid.worker, done.scans) },
    perConfirm: { api: perCommand(mid.api, after.api, done.confirms), worker: perCommand(mid.worker, after.worker, done.confirms) },
  };
  const { perScan: ps, perConfirm: pc } = census;
  say(`[census] statements per scan: API ${ps.api.total}, worker ${ps.worker.total} · per confirm: API ${pc.api.total}, worker ${pc.worker.total}`);
  for (const [label, per] of [['scan', ps], ['confirm', pc]] as const) {
    for (const [role, counts] of Object.entries(per)) {
      for (const [text, count] of Object.entries(counts.statements)) say(`  ${label} ${role.padEnd(6)} ${String(count).padStart(5)} × ${text.slice(0, 120)}`);
    }
  }
  return census;
}
