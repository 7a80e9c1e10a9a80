import { eventConsumer } from '../pipeline/consumer-runner';
import type { WorkerKindCode } from '../pipeline/worker-kind';
import { autoPrintCompletedOrders } from './auto-print.use-case';
import { prerenderCompletedSlots } from './prerender-label.use-case';
import { startPrinting } from './print-worker';

/**
 * Worker kind `labels`. Its consumers: `labels` renders the license plate of each completed slot's
 * order ahead, so it is ready when the shipper scans, in the formats its client has been printing
 * (LABEL_PRERENDER_DAYS; workers/labels/prerender-label.use-case.ts), and `printing` makes the print
 * jobs of walls that print by themselves (autoPrint), which the print sender of this process looks
 * for after each of its batches. Renders in this process: it is not the API's event loop. The print
 * sender sends every print job to its network printer (workers/labels/print-worker.ts).
 */
export const labelsKind: WorkerKindCode = {
  consumers: [
    eventConsumer('labels', async (events, tx, { config }) => void (await prerenderCompletedSlots(tx, events, config.LABEL_PRERENDER_DAYS)), ['sort-box.completed']),
    eventConsumer('printing', async (events, tx) => void (await autoPrintCompletedOrders(tx, events)), ['sort-box.completed']),
  ],
  start: async (runtime) => {
    const sender = await startPrinting(runtime);
    return { context: undefined, afterCommit: { printing: () => sender.wake() } };
  },
};
