import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import type { WallEvent } from '../../shared/events/channels';
import type { Logger } from '../../shared/logging/logger';
import { startEventConsumer } from '../../shared/queue/event-batch';
import type { Runtime } from '../../shared/runtime/runtime';
import { prerenderLicensePlate } from './prerender-label.use-case';

/** The part of a `sort-box.completed` event the labels worker reads. */
const completedData = z.object({ orderId: z.number().int() });

/**
 * One committed event: a completed slot gets its order's license plate rendered ahead (ZPL and PDF);
 * every other event is ignored. Idempotent, so a redelivered event only renders again.
 */
export async function handleLabelsEvent(em: EntityManager, log: Logger, event: WallEvent): Promise<void> {
  if (event.type !== 'sort-box.completed') return;
  const data = completedData.safeParse(event.data);
  if (!data.success) {
    log.warn({ eventId: event.id }, 'sort-box.completed without an order id: no label rendered ahead');
    return;
  }
  const result = await prerenderLicensePlate(em.fork(), event.clientId, data.data.orderId);
  log.debug({ eventId: event.id, orderId: data.data.orderId, ...result }, 'license plate rendered ahead');
}

/**
 * Worker kind `labels`: a consumer of the outbox fan-out that renders the license plate of each
 * completed slot's order ahead, so it is ready when the shipper scans. Its jobs (`labels.batch`) carry
 * only `sort-box.completed` events (its filter in EVENT_CONSUMERS); one that fails to render fails
 * only itself (shared/queue/event-batch.ts). Renders in this process: it is not the API's event loop.
 */
export async function startLabelsWorker(runtime: Runtime): Promise<void> {
  const { log, orm } = runtime;
  const renderAll = async (events: readonly WallEvent[]) => {
    for (const event of events) await handleLabelsEvent(orm.em, log, event);
  };
  // A few batches in flight: one slow PDF does not hold up the next completed slots.
  await startEventConsumer(runtime, 'labels', renderAll, { concurrency: 4, name: 'labels worker' });
}
