import type { BenchHttp } from './http-client';
import { ErrorCounts, summarize, type LatencySummary } from './stats';

/** A signed-in sorter connected to its wall. */
export interface BenchSorter {
  label: string;
  wallIndex: number;
  auth: string;
  sessionToken: string;
  /** The barcodes it scans, in turn. */
  barcodes: string[];
  next: number;
}

export interface OpFigures {
  ok: number;
  /** Successful operations per second over the step (first send to last answer). */
  throughput: number;
  /** Latency of the successful operations, ms. */
  latency: LatencySummary;
  /** p99 over every answered request, failures included (differs from latency.p99 only when some failed). */
  p99All: number;
  errors: Record<string, number>;
}

export interface StepFigures {
  step: string;
  kind: 'closed' | 'open';
  sorters: number;
  offeredRate: number | null;
  seconds: number;
  scan: OpFigures;
  confirm: OpFigures;
  /** Open loop: how late the bench itself sent scans (ms behind schedule); large values mean the client was the bottleneck. */
  sendLag: LatencySummary | null;
  /** The machine's 1-minute load average when the step ended (set by bench.ts): other work on the box skews every figure. */
  loadAvg1m?: number;
  /**
   * CPU time used during the step (set by bench.ts), ms in total and per successful scan (each scan
   * with its confirm): what a scan costs whatever else runs on the machine.
   */
  cpu?: { totalMs: Record<string, number>; perScanMs: Record<string, number> };
  /** Peak resident memory during the step, MB (set by bench.ts). */
  rssPeakMb?: { api: number | null; worker: number | null };
  /** The API's heap and RSS by its own /metrics at the end of the step, MB (set by bench.ts). */
  apiMemoryAtEndMb?: Record<string, number> | null;
}

class Recorder {
  readonly scanOk: number[] = [];
  readonly scanAll: number[] = [];
  readonly confirmOk: number[] = [];
  readonly confirmAll: number[] = [];
  readonly scanErrors = new ErrorCounts();
  readonly confirmErrors = new ErrorCounts();
  readonly sendLag: number[] = [];
  lastAnswer = 0;

  /** One answer of `op`, sent at `since` (ms, performance.now()): its latency, and an error or a success. */
  answered(op: 'scan' | 'confirm', since: number, res: { status: number; code: string | null }): boolean {
    const at = performance.now();
    (op === 'scan' ? this.scanAll : this.confirmAll).push(at - since);
    this.lastAnswer = Math.max(this.lastAnswer, at);
    if (res.status !== 200) {
      (op === 'scan' ? this.scanErrors : this.confirmErrors).add(res.status, res.code ?? 'unknown');
      return false;
    }
    (op === 'scan' ? this.scanOk : this.confirmOk).push(at - since);
    return true;
  }

  figures(op: 'scan' | 'confirm', elapsedS: number): OpFigures {
    const ok = op === 'scan' ? this.scanOk : this.confirmOk;
    const all = op === 'scan' ? this.scanAll : this.confirmAll;
    const errors = op === 'scan' ? this.scanErrors : this.confirmErrors;
    return {
      ok: ok.length,
      throughput: Math.round((ok.length / elapsedS) * 10) / 10,
      latency: summarize(ok),
      p99All: summarize(all).p99,
      errors: errors.toJSON(),
    };
  }
}

/**
 * One sorter's cycle: scan the next barcode, then confirm the item into the slot the answer names
 * (scanning the slot's sorter barcode A-<crc>, as on the floor). The scan's latency counts from
 * `scheduledAt` (the open loop's planned send time); the confirm's from its own send.
 */
async function scanAndConfirm(http: BenchHttp, s: BenchSorter, rec: Recorder, scheduledAt: number): Promise<void> {
  const barcode = s.barcodes[s.next++ % s.barcodes.length];
  const scan = await http.request('POST', '/api/v1/sort-box-items', { auth: s.auth, body: { sessionToken: s.sessionToken, barcode } });
  if (!rec.answered('scan', scheduledAt, scan)) return;
  const item = scan.body as { id: number; crc: string };
  const t0 = performance.now();
  const confirm = await http.request('PATCH', `/api/v1/sort-box-items/${item.id}/confirm`, { auth: s.auth, body: { barcode: `A-${item.crc}` } });
  rec.answered('confirm', t0, confirm);
}

function progress(step: string, start: number, durationMs: number, rec: Recorder): NodeJS.Timeout {
  return setInterval(() => {
    const elapsed = performance.now() - start;
    const left = Math.max(0, Math.ceil((durationMs - elapsed) / 1000));
    const errs = rec.scanErrors.total + rec.confirmErrors.total;
    console.log(
      `  ${step.padEnd(14)} ${left > 0 ? `${String(left).padStart(3)} s left` : ' draining'} · ${rec.scanOk.length} scans (${Math.round(rec.scanOk.length / (elapsed / 1000))}/s) · ${rec.confirmOk.length} confirms · ${errs} errors`,
    );
  }, 1000);
}

/** Closed loop: each sorter scans, confirms, and scans again at once, for durationMs. */
export async function closedLoop(http: BenchHttp, sorters: BenchSorter[], durationMs: number, step: string): Promise<StepFigures> {
  const rec = new Recorder();
  const start = performance.now();
  const end = start + durationMs;
  const ticker = progress(step, start, durationMs, rec);
  try {
    await Promise.all(
      sorters.map(async (s) => {
        while (performance.now() < end) await scanAndConfirm(http, s, rec, performance.now());
      }),
    );
  } finally {
    clearInterval(ticker);
  }
  const elapsedS = (Math.max(rec.lastAnswer, end) - start) / 1000;
  return { step, kind: 'closed', sorters: sorters.length, offeredRate: null, seconds: Math.round(elapsedS * 100) / 100, scan: rec.figures('scan', elapsedS), confirm: rec.figures('confirm', elapsedS), sendLag: null };
}

/**
 * Open loop: scans are sent at a fixed rate whatever the answers, each by the next sorter in turn,
 * each followed by its confirm. Latency counts from the planned send time, so a stalled service
 * cannot hide its backlog (no coordinated omission). After durationMs no new scan is sent and the
 * step waits for the answers still due (bounded by the client timeout).
 */
export async function openLoop(http: BenchHttp, sorters: BenchSorter[], rate: number, durationMs: number, step: string): Promise<StepFigures> {
  const rec = new Recorder();
  const total = Math.round((rate * durationMs) / 1000);
  const inFlight = new Set<Promise<void>>();
  const start = performance.now();
  const ticker = progress(step, start, durationMs, rec);
  try {
    let i = 0;
    while (i < total) {
      const now = performance.now();
      for (let due = start + (i * 1000) / rate; i < total && due <= now; due = start + (i * 1000) / rate) {
        rec.sendLag.push(now - due);
        const p = scanAndConfirm(http, sorters[i % sorters.length], rec, due);
        inFlight.add(p);
        void p.finally(() => inFlight.delete(p));
        i++;
      }
      await new Promise((r) => setTimeout(r, 1));
    }
    await Promise.all([...inFlight]);
  } finally {
    clearInterval(ticker);
  }
  const elapsedS = (Math.max(rec.lastAnswer, start + durationMs) - start) / 1000;
  return {
    step,
    kind: 'open',
    sorters: sorters.length,
    offeredRate: rate,
    seconds: Math.round(elapsedS * 100) / 100,
    scan: rec.figures('scan', elapsedS),
    confirm: rec.figures('confirm', elapsedS),
    sendLag: summarize(rec.sendLag),
  };
}

/** Sequential scans (then as many confirms) by one sorter, between two reads of the query counters. */
export async function censusCycle(http: BenchHttp, s: BenchSorter, n: number, between: () => Promise<void>): Promise<{ scans: number; confirms: number }> {
  const items: { id: number; crc: string }[] = [];
  for (let i = 0; i < n; i++) {
    const scan = await http.request('POST', '/api/v1/sort-box-items', { auth: s.auth, body: { sessionToken: s.sessionToken, barcode: s.barcodes[s.next++ % s.barcodes.length] } });
    if (scan.status === 200) items.push(scan.body as { id: number; crc: string });
  }
  await between();
  let confirms = 0;
  for (const item of items) {
    const c = await http.request('PATCH', `/api/v1/sort-box-items/${item.id}/confirm`, { auth: s.auth, body: { barcode: `A-${item.crc}` } });
    if (c.status === 200) confirms++;
  }
  return { scans: items.length, confirms };
}
