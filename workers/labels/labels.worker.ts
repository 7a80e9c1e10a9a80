import type { Runtime } from '../../shared/runtime/runtime';
import { startEventConsumer } from '../pipeline/consumer-runner';
import { EVENT_CONSUMERS } from '../pipeline/consumers';

/**
 * Worker kind `labels`: the consumer that renders the license plate of each completed slot's order
 * ahead, so it is ready when the shipper scans, in the formats its client has been printing
 * (LABEL_PRERENDER_DAYS; workers/labels/prerender-label.use-case.ts). Renders in this process: it is
 * not the API's event loop.
 */
export async function startLabelsWorker(runtime: Runtime): Promise<void> {
  await startEventConsumer(runtime, EVENT_CONSUMERS.labels, { name: 'labels worker' });
}
