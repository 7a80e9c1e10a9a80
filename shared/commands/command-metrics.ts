import client from 'prom-client';
import { boundObservers } from '../logging/bound-observers';

/**
 * The command client's metrics: latency from the caller's point of view (admission, queue wait, the
 * holder's work), per command and outcome; the service time the workers report; the admission
 * policy's refusals by reason. Registered by whoever serves /metrics (the API's registry).
 */
export const commandDuration = new client.Histogram({
  name: 'command_duration_seconds',
  help: 'Workflow command latency seen by the API (enqueue to answer), by command and outcome (ok or the refusal code)',
  labelNames: ['command', 'outcome'],
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [],
});

/** commandDuration's children by command and outcome (command names and problem codes are finite sets). */
const durationOf = boundObservers(commandDuration, 1_000);

/** Observes a command's latency (seconds) under its name and outcome (`ok` or the refusal code). */
export function observeCommandDuration(command: string, outcome: string, seconds: number): void {
  durationOf(`${command} ${outcome}`, () => [command, outcome]).observe(seconds);
}

export const commandService = new client.Histogram({
  name: 'command_service_seconds',
  help: 'Time a sorting worker spent on a workflow command, from taking it to its answer, as reported with the answer (what admission estimates a partition\'s wait from)',
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
  registers: [],
});

export const admissionRefusals = new client.Counter({
  name: 'command_admission_refusals_total',
  help: 'Commands refused 503 by the admission policy, by reason: wait (the expected wait over its budget), late (the oldest waiting command over it), loop (the event loop of the API running late), ceiling (COMMAND_MAX_IN_FLIGHT)',
  labelNames: ['reason'],
  registers: [],
});

/** Every metric of this module, for a registry to take in. */
export const COMMAND_METRICS: client.Metric[] = [commandDuration, commandService, admissionRefusals];
