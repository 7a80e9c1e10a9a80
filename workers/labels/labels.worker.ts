import type { Runtime } from '../../shared/runtime/runtime';
import { startConsumerKind } from '../pipeline/consumers';
import { startPrinting } from './print-worker';

/**
 * Worker kind `labels`: its consumers (workers/pipeline/consumers.ts, kind `labels`): `labels` renders
 * the license plate of each completed slot's order ahead, so it is ready when the shipper scans, in the
 * formats its client has been printing (LABEL_PRERENDER_DAYS; workers/labels/prerender-label.use-case.ts),
 * and `printing` makes the print jobs of walls that print by themselves. Renders in this process: it is
 * not the API's event loop. The print sender sends every print job to its network printer
 * (workers/labels/print-worker.ts).
 */
export async function startLabelsWorker(runtime: Runtime): Promise<void> {
  const sender = await startPrinting(runtime);
  await startConsumerKind(runtime, 'labels', { printing: () => sender.wake() });
}
