import type { Request, Response } from 'express';
import client from 'prom-client';
import { redactUrl } from '../../../shared/logging/redact';
import { COMMAND_METRICS } from '../../../shared/commands/command-metrics';
import { boundObservers } from '../../../shared/logging/bound-observers';

/** One registry per process; /metrics serves it. */
export const metricsRegistry = new client.Registry();
client.collectDefaultMetrics({ register: metricsRegistry });

const httpDuration = new client.Histogram({
  name: 'http_request_duration_seconds',
  help: 'HTTP request duration by route template, method and status',
  labelNames: ['method', 'route', 'status'],
  buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
  registers: [metricsRegistry],
});

/** The route template of a request answered before Express's router (app.ts, the hot routes), for its label. */
const ROUTE_LABEL = Symbol('metrics route');

/** Names the route template a request's duration is labelled with when no router matched it (the hot routes). */
export function setMetricsRoute(req: Request, route: string): void {
  (req as Request & { [ROUTE_LABEL]?: string })[ROUTE_LABEL] = route;
}

/**
 * The histogram's children by method, route and status, each bound once (as many as its own series:
 * route templates, not paths; cleared should a router mounted under a parameter ever make them many).
 * The route template, never the raw path: ids in label values would explode the series. A router
 * mounted under a parameter puts the value into baseUrl, so it passes the redaction too.
 */
const observerFor = boundObservers(httpDuration, 5_000);
const observerOf = (method: string, path: string, status: number) =>
  observerFor(`${method} ${status} ${path}`, () => [method, path === 'unmatched' ? path : redactUrl(path), String(status)]);

/** Times the request from now to its answer's `finish`, labelled with its method, route template and status. */
export function timeRequest(req: Request, res: Response): void {
  const start = performance.now();
  res.on('finish', () => {
    const route = (req as Request & { [ROUTE_LABEL]?: string })[ROUTE_LABEL] ?? (req.route?.path ? `${req.baseUrl}${req.route.path}` : 'unmatched');
    observerOf(req.method, route, res.statusCode).observe((performance.now() - start) / 1000);
  });
}

// Sources of the listener gauge: one per WallEventsHub in this process (tests build several).
const wallListenerSources = new Set<() => number>();
new client.Gauge({
  name: 'wall_event_listeners',
  help: 'SSE and WebSocket connections following a wall in this process (returns to 0 when none is open)',
  registers: [metricsRegistry],
  collect() {
    let n = 0;
    for (const count of wallListenerSources) n += count();
    this.set(n);
  },
});

/** Adds a hub's listener count to the `wall_event_listeners` gauge; the returned function removes it. */
export function trackWallListeners(count: () => number): () => void {
  wallListenerSources.add(count);
  return () => wallListenerSources.delete(count);
}

// Sources of the wall view reads: one per wall view cache in this process (tests build several).
const wallViewSources = new Set<() => { memory: number; database: number }>();
new client.Counter({
  name: 'wall_view_reads_total',
  help: 'GET /walls/{id} reads by where they were answered from: memory (the wall unchanged since it was last read) or database',
  labelNames: ['answered'],
  registers: [metricsRegistry],
  collect() {
    let memory = 0;
    let database = 0;
    for (const reads of wallViewSources) {
      const r = reads();
      memory += r.memory;
      database += r.database;
    }
    this.reset();
    this.inc({ answered: 'memory' }, memory);
    this.inc({ answered: 'database' }, database);
  },
});

/** Adds a wall view cache's reads to `wall_view_reads_total`; the returned function removes it. */
export function trackWallViewReads(reads: () => { memory: number; database: number }): () => void {
  wallViewSources.add(reads);
  return () => wallViewSources.delete(reads);
}

/* ---- Commands: the command client's own metrics (shared/commands/command-metrics.ts) ---- */

for (const metric of COMMAND_METRICS) metricsRegistry.registerMetric(metric);

/* ---- Hub connections ---- */

const hubConnections = new client.Gauge({
  name: 'hub_connections',
  help: 'Open hub event streams of this process, by transport (sse, websocket)',
  labelNames: ['transport'],
  registers: [metricsRegistry],
});
hubConnections.set({ transport: 'sse' }, 0);
hubConnections.set({ transport: 'websocket' }, 0);

/** Counts one open stream; call the answer once when it closes. */
export function trackHubConnection(transport: 'sse' | 'websocket'): () => void {
  hubConnections.inc({ transport });
  let open = true;
  return () => {
    if (open) hubConnections.dec({ transport });
    open = false;
  };
}

/* ---- Deployment-wide gauges, read on scrape (from Redis and PostgreSQL) ---- */

/** Where the scrape-time gauges read from; the process's API sets it once (the latest one wins). */
export interface OperationalSources {
  queueCounts(): Promise<{ queue: string; counts: Record<string, number> }[]>;
  /** Age in seconds of the oldest unpublished outbox event (0 when none) and how many there are. */
  outbox(): Promise<{ lagSeconds: number; unpublished: number }>;
  /** Failed webhook attempts in the last WEBHOOK_FAILURE_WINDOW_S seconds. */
  webhookFailures(): Promise<number>;
  /** Light controllers the gateway knows of, online and offline (docs/lights.md). */
  lightControllers(): Promise<{ online: number; offline: number }>;
  /** Per event consumer: the age of the oldest relayed event it has not applied yet (0 when caught up). */
  consumers(): Promise<{ consumer: string; lagSeconds: number }[]>;
  /** Label printers by health and the print jobs waiting for them (docs/operations.md, "Printers"). */
  printers?(): Promise<{ ok: number; failing: number; queuedJobs: number; oldestQueuedSeconds: number }>;
}

export const WEBHOOK_FAILURE_WINDOW_S = 300;
// A scrape answers within this even while Redis or PostgreSQL hangs; the gauge is then left out.
const SOURCE_TIMEOUT_MS = 2000;
let sources: OperationalSources | null = null;

/** Sets the sources; the answer unsets them unless another API of the process has replaced them since. */
export function setOperationalSources(s: OperationalSources): () => void {
  sources = s;
  return () => {
    if (sources === s) sources = null;
  };
}

function bounded<T>(p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('metrics source timed out')), SOURCE_TIMEOUT_MS);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

const collectorErrors = new client.Counter({
  name: 'metrics_collector_errors_total',
  help: 'Scrape-time collectors that failed or timed out (their gauges are NaN or missing in that scrape), by collector',
  labelNames: ['collector'],
  registers: [metricsRegistry],
});

new client.Gauge({
  name: 'queue_jobs',
  help: 'Jobs per queue and state (waiting, active, delayed, prioritized, failed, completed) as BullMQ holds them',
  labelNames: ['queue', 'state'],
  registers: [metricsRegistry],
  async collect() {
    this.reset();
    if (!sources) return;
    try {
      for (const { queue, counts } of await bounded(sources.queueCounts())) {
        for (const [state, n] of Object.entries(counts)) this.set({ queue, state }, n);
      }
    } catch {
      collectorErrors.inc({ collector: 'queue_jobs' });
    }
  },
});

/**
 * One reading that several gauges take their figures from, so a scrape runs its query once. A scrape
 * starts every collector in the same tick (prom-client's registry.metrics()), so they all find the
 * reading in flight and share it; the next scrape, the reading settled, starts a new one.
 */
function sharedReading<T>(read: () => Promise<T>): () => Promise<T> {
  let inFlight: Promise<T> | null = null;
  return () =>
    (inFlight ??= bounded(read()).finally(() => {
      inFlight = null;
    }));
}

type OutboxReading = { lagSeconds: number; unpublished: number };
const readOutbox = sharedReading(() => sources!.outbox());

/** One outbox gauge: unknown (NaN, not 0, which would read as "caught up") when the read fails; only one of the two counts the failure. */
function outboxGauge(name: string, help: string, value: (o: OutboxReading) => number, countsFailure: boolean): void {
  new client.Gauge({
    name,
    help,
    registers: [metricsRegistry],
    async collect() {
      this.reset();
      if (!sources) return;
      try {
        this.set(value(await readOutbox()));
      } catch {
        this.set(NaN);
        if (countsFailure) collectorErrors.inc({ collector: 'outbox' });
      }
    },
  });
}

outboxGauge(
  'outbox_lag_seconds',
  'Age of the oldest committed event not yet published to hubs and webhooks (0 when the relay is caught up)',
  (o) => o.lagSeconds,
  true,
);
outboxGauge('outbox_unpublished_events', 'Committed events waiting for the outbox relay', (o) => o.unpublished, false);

new client.Gauge({
  name: 'outbox_consumer_lag_seconds',
  help: 'Per event consumer (audit, stats, labels, printing, webhooks, lights): age of the oldest relayed event it has not applied (0 when caught up)',
  labelNames: ['consumer'],
  registers: [metricsRegistry],
  async collect() {
    this.reset();
    if (!sources) return;
    try {
      for (const c of await bounded(sources.consumers())) this.set({ consumer: c.consumer }, c.lagSeconds);
    } catch {
      collectorErrors.inc({ collector: 'outbox_consumers' });
    }
  },
});

new client.Gauge({
  name: 'webhook_delivery_failures_recent',
  help: `Failed webhook delivery attempts in the last ${WEBHOOK_FAILURE_WINDOW_S} s (every client, every subscription)`,
  registers: [metricsRegistry],
  async collect() {
    this.reset();
    if (!sources) return;
    try {
      this.set(await bounded(sources.webhookFailures()));
    } catch {
      this.set(NaN);
      collectorErrors.inc({ collector: 'webhook_failures' });
    }
  },
});

new client.Gauge({
  name: 'light_controllers',
  help: 'Slot light controllers known to the light gateway, by state (online, offline), every client',
  labelNames: ['state'],
  registers: [metricsRegistry],
  async collect() {
    this.reset();
    if (!sources) return;
    try {
      const n = await bounded(sources.lightControllers());
      this.set({ state: 'online' }, n.online);
      this.set({ state: 'offline' }, n.offline);
    } catch {
      collectorErrors.inc({ collector: 'light_controllers' });
    }
  },
});

const readPrinters = sharedReading(() => sources!.printers!());

new client.Gauge({
  name: 'printers',
  help: 'Network label printers by health, every client: ok (the last attempt to reach it succeeded, or none yet), failing (it failed; GET /printers says why)',
  labelNames: ['state'],
  registers: [metricsRegistry],
  async collect() {
    this.reset();
    if (!sources?.printers) return;
    try {
      const n = await readPrinters();
      this.set({ state: 'ok' }, n.ok);
      this.set({ state: 'failing' }, n.failing);
    } catch {
      collectorErrors.inc({ collector: 'printers' });
    }
  },
});

new client.Gauge({
  name: 'print_jobs_queued',
  help: 'Print jobs waiting for their printer (Queued), every client',
  registers: [metricsRegistry],
  async collect() {
    this.reset();
    if (!sources?.printers) return;
    try {
      this.set((await readPrinters()).queuedJobs);
    } catch {
      this.set(NaN);
    }
  },
});

new client.Gauge({
  name: 'print_job_oldest_queued_seconds',
  help: 'Age of the oldest print job still waiting for its printer (0 when none waits)',
  registers: [metricsRegistry],
  async collect() {
    this.reset();
    if (!sources?.printers) return;
    try {
      this.set((await readPrinters()).oldestQueuedSeconds);
    } catch {
      this.set(NaN);
    }
  },
});
