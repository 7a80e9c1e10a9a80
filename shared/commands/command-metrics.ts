import client from 'prom-client';

/**
 * The command client's metrics: latency from the caller's point of view (admission, queue wait, the
 * holder's work), per command and outcome. Registered by whoever serves /metrics (the API's registry).
 */
export const commandDuration = new client.Histogram({
  name: 'command_duration_seconds',
  help: 'Workflow command latency seen by the API (enqueue to answer), by command and outcome (ok or the refusal code)',
  labelNames: ['command', 'outcome'],
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [],
});

/** Every metric of this module, for a registry to take in. */
export const COMMAND_METRICS: client.Metric[] = [commandDuration];
