import { cpuMs } from './cpu-usage';
import type { BenchHttp } from './http-client';
import { residentBytes } from './service-processes';
import { ErrorCounts, summarize, type LatencySummary } from './stats';

/** What one label format did through the API: throughput, latency, and the API's event loop meanwhile. */
export interface LabelFigures {
  format: 'zpl' | 'pdf';
  concurrency: number;
  seconds: number;
  ok: number;
  throughput: number;
  latency: LatencySummary;
  errors: Record<string, number>;
  /** From the API's /metrics (prom-client resets its event-loop histogram on every scrape), ms. */
  apiEventLoopDelayMs: { p50: number; p99: number; max: number } | null;
  /** CPU time of the API process (main thread and render threads) per label, ms: the figure a busy machine does not distort. */
  apiCpuMsPerLabel: number | null;
  /** Resident memory of the API process after the step (render threads included), MB. */
  apiRssMb: number | null;
  target: number;
  meetsTarget: boolean;
}

export const LABEL_TARGETS = { pdf: 100, zpl: 2000 } as const;

/** BENCH_LABEL_SECONDS (0 skips the label steps) and BENCH_LABEL_CONCURRENCY. */
export function labelBenchSettings(): { seconds: number; concurrency: number } {
  const num = (name: string, fallback: number, min: number) => {
    const raw = process.env[name];
    if (raw === undefined || raw === '') return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be an integer ≥ ${min}; got '${raw}'.`);
    return n;
  };
  return { seconds: num('BENCH_LABEL_SECONDS', 5, 0), concurrency: num('BENCH_LABEL_CONCURRENCY', 16, 1) };
}

async function eventLoopDelay(http: BenchHttp): Promise<{ p50: number; p99: number; max: number } | null> {
  const res = await http.request('GET', '/metrics', { timeoutMs: 5000 });
  if (res.status !== 200 || typeof res.body !== 'string') return null;
  const read = (metric: string) => {
    const m = new RegExp(`^${metric}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(res.body as string);
    return m ? Math.round(Number(m[1]) * 1000 * 100) / 100 : NaN;
  };
  return { p50: read('nodejs_eventloop_lag_p50_seconds'), p99: read('nodejs_eventloop_lag_p99_seconds'), max: read('nodejs_eventloop_lag_max_seconds') };
}

/**
 * A closed loop of `concurrency` clients printing license plates by order id for `seconds`, one format
 * at a time, each request a full print (plate number, audit row, render on the API's threads).
 */
export async function runLabelBench(
  http: BenchHttp,
  auth: string,
  orderIds: number[],
  opts: { seconds: number; concurrency: number; apiPid?: number },
  say: (line: string) => void,
): Promise<LabelFigures[]> {
  if (!orderIds.length) throw new Error('the label bench needs orders');
  // The event loop delay of the idle API first: on a busy machine the process also waits for a CPU.
  await eventLoopDelay(http);
  await new Promise((r) => setTimeout(r, 2000));
  const idle = await eventLoopDelay(http);
  const idleRss = residentBytes(opts.apiPid);
  say(
    `[labels] idle API event loop delay over 2 s: p99 ${idle?.p99 ?? '?'} max ${idle?.max ?? '?'} ms · API RSS before the first label ${idleRss === undefined ? '?' : Math.round(idleRss / 2 ** 20)} MB`,
  );
  const figures: LabelFigures[] = [];
  for (const format of ['zpl', 'pdf'] as const) {
    // Warm the render threads and the query plans, and reset the event-loop histogram.
    await Promise.all(Array.from({ length: opts.concurrency }, (_, i) => http.request('POST', `/api/v1/license-plates/orders/${orderIds[i % orderIds.length]}/${format}`, { auth })));
    await eventLoopDelay(http);
    const samples: number[] = [];
    const errors = new ErrorCounts();
    let next = 0;
    const cpuBefore = cpuMs(opts.apiPid);
    const started = performance.now();
    const until = started + opts.seconds * 1000;
    await Promise.all(
      Array.from({ length: opts.concurrency }, async () => {
        while (performance.now() < until) {
          const orderId = orderIds[next++ % orderIds.length];
          const t0 = performance.now();
          const res = await http.request('POST', `/api/v1/license-plates/orders/${orderId}/${format}`, { auth });
          if (res.status === 200) samples.push(performance.now() - t0);
          else errors.add(res.status, res.code ?? '?');
        }
      }),
    );
    const elapsed = (performance.now() - started) / 1000;
    const cpuAfter = cpuMs(opts.apiPid);
    const apiCpuMsPerLabel =
      cpuBefore !== undefined && cpuAfter !== undefined && samples.length ? Math.round(((cpuAfter - cpuBefore) / samples.length) * 100) / 100 : null;
    const loop = await eventLoopDelay(http);
    const throughput = Math.round((samples.length / elapsed) * 10) / 10;
    const f: LabelFigures = {
      format,
      concurrency: opts.concurrency,
      seconds: opts.seconds,
      ok: samples.length,
      throughput,
      latency: summarize(samples),
      errors: errors.toJSON(),
      apiEventLoopDelayMs: loop,
      apiCpuMsPerLabel,
      apiRssMb: opts.apiPid && residentBytes(opts.apiPid) !== undefined ? Math.round(residentBytes(opts.apiPid)! / 2 ** 20) : null,
      target: LABEL_TARGETS[format],
      meetsTarget: throughput >= LABEL_TARGETS[format],
    };
    figures.push(f);
    say(
      `[labels] ${format.toUpperCase()}: ${f.throughput}/s (target ≥ ${f.target}: ${f.meetsTarget ? 'met' : 'NOT met'}) · p50 ${f.latency.p50} p99 ${f.latency.p99} ms · ` +
        `API event loop delay p99 ${loop?.p99 ?? '?'} max ${loop?.max ?? '?'} ms · API CPU ${apiCpuMsPerLabel ?? '?'} ms/label · API RSS ${f.apiRssMb ?? '?'} MB · errors ${JSON.stringify(f.errors)}`,
    );
  }
  return figures;
}
