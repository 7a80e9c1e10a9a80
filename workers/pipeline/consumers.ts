import { applyStatsEventRange } from '../stats/apply-events.use-case';
import { auditRecordsOf } from '../audit/audit-names';
import { writeAuditRecords } from '../audit/write-audit.use-case';
import { prerenderCompletedSlots } from '../labels/prerender-label.use-case';
import { autoPrintCompletedOrders } from '../labels/auto-print.use-case';
import { scheduleDeliveries } from '../webhooks/delivery.queries';
import { eventConsumer, type ConsumerSpec, type EventConsumer } from './consumer-runner';

/** The events that change a light (the light gateway's consumer, workers/lights). */
const LIGHT_EVENT_TYPES = [
  'sort-box-item.created', 'sort-box-item.confirmed', 'sort-box-item.cancelled', 'sort-box-item.swapped',
  'sort-box.completed', 'sort-box.released', 'wall.updated', 'command.refused', 'lights.mode',
] as const;

/**
 * Every consumer of the relayed events, one entry each (docs/architecture.md "Event pipeline"). Each
 * reads the outbox from its own position in outbox_consumer; its worker kind starts it with
 * startEventConsumer (workers/pipeline/consumer-runner.ts). The retention keeps every event until each
 * consumer here has passed it. Adding one: an entry here, a worker kind that starts it
 * (workers/registry.ts and the supervisor's roles). A new consumer starts at the end of the relayed events.
 */
const consumers = {
  /** The audit log: each batch's records (their messages naming employees and walls) in one insert. */
  audit: eventConsumer('audit', async (events, tx) => void (await writeAuditRecords(tx, await auditRecordsOf(tx, events)))),
  /** The statistics roll-ups for /insights: one statement per batch, reading the outbox rows in the database. */
  stats: { name: 'stats', readsEvents: false, handle: async (batch, tx) => void (await applyStatsEventRange(tx, batch)) },
  /** License plates rendered ahead when a slot completes, in the formats the client prints. */
  labels: eventConsumer(
    'labels',
    async (events, tx, { config }) => void (await prerenderCompletedSlots(tx, events, config.LABEL_PRERENDER_DAYS)),
    ['sort-box.completed'],
  ),
  /**
   * Automatic prints: a print job for each order completed in a wall that prints by itself (autoPrint),
   * sent by the print sender of the labels worker kind (workers/labels/print-worker.ts).
   */
  printing: eventConsumer('printing', async (events, tx) => void (await autoPrintCompletedOrders(tx, events)), ['sort-box.completed']),
  /** Webhook deliveries: written as pending rows that the webhook senders work through (workers/webhooks). */
  webhooks: { name: 'webhooks', readsEvents: false, handle: async (batch, tx) => void (await scheduleDeliveries(tx, batch)) },
  /**
   * The light gateway: the events that change a light, its handler given by the worker (it needs the
   * gateway's drivers). Few attempts: a wall missed is set again at the gateway's next full resync
   * (LIGHTS_RESYNC_MS), and a stale light is worse than a late one.
   */
  lights: { name: 'lights', types: LIGHT_EVENT_TYPES, attempts: 5 },
} satisfies Record<string, EventConsumer | ConsumerSpec>;

export type EventConsumerName = keyof typeof consumers;
export const EVENT_CONSUMERS: { [N in EventConsumerName]: (typeof consumers)[N] extends EventConsumer ? EventConsumer : ConsumerSpec } = consumers;
