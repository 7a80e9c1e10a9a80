import type { RequestHandler } from 'express';
import client from 'prom-client';

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

export const httpMetrics: RequestHandler = (req, res, next) => {
  const end = httpDuration.startTimer();
  res.on('finish', () => {
    // The route template, never the raw path: ids in label values would explode the series.
    const route = req.route?.path ? `${req.baseUrl}${req.route.path}` : 'unmatched';
    end({ method: req.method, route, status: String(res.statusCode) });
  });
  next();
};

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
