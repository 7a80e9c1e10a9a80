import type { Runtime } from '../../shared/runtime/runtime';
import { startEventConsumer } from '../pipeline/consumer-runner';
import { EVENT_CONSUMERS } from '../pipeline/consumers';
import { startPrinting } from './print-worker';

/**
 * Worker kind `labels`: the consumer that renders the license plate of each completed slot's order
 * ahead, so it is ready when the shipper scans, in the formats its client has been printing
 * (LABEL_PRERENDER_DAYS; workers/labels/prerender-label.use-case.ts). Renders in this process: it is
 * not the API's event loop. It also prints: the `printing` consumer makes the print jobs of walls that
 * print by themselves, and the print sender sends every print job to its network printer
 * (workers/labels/print-worker.ts).
 */
export async function startLabelsWorker(runtime: Runtime): Promise<void> {
  await startEventConsumer(runtime, EVENT_CONSUMERS.labels, { name: 'labels worker' });
  await startPrinting(runtime);
}
