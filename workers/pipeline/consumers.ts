import { applyStatsEventRange } from '../stats/apply-events.use-case';
import { auditRecordsOf } from '../audit/audit-names';
import { writeAuditRecords } from '../audit/write-audit.use-case';
import { prerenderCompletedSlots } from '../labels/prerender-label.use-case';
import { autoPrintCompletedOrders } from '../labels/auto-print.use-case';
import { scheduleDeliveries } from '../webhooks/delivery.queries';
import { handleLightsEvents } from '../lights/lights-events.use-case';
import type { Runtime } from '../../shared/runtime/runtime';
import type { WorkerKind } from '../../shared/runtime/worker-kinds';
import { consumerSettings, eventConsumer, startEventConsumer, type ConsumerSettings, type EventConsumer } from './consumer-runner';

/** The events that change a light (the light gateway's consumer, workers/lights). */
const LIGHT_EVENT_TYPES = [
  'sort-box-item.created', 'sort-box-item.confirmed', 'sort-box-item.cancelled', 'sort-box-item.swapped',
  'sort-box.completed', 'sort-box.released', 'wall.updated', 'command.refused', 'lights.mode',
] as const;

/**
 * A consumer of the table: what it reads and does, the worker kind that runs it (its process group:
 * shared/runtime/worker-kinds.ts), and its settings where they differ from the process's OUTBOX_*
 * ones: fixed values (`settings`), or `gather`: it looks that many times less often and takes batches
 * that many times larger, for a consumer whose cost is per batch rather than per event.
 */
type ConsumerEntry = EventConsumer & { kind: WorkerKind; settings?: Partial<ConsumerSettings>; gather?: number };

function need<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`${what} is not running in this process`);
  return value;
}

/**
 * Every consumer of the relayed events, one entry each (docs/architecture.md "Event pipeline"): its
 * handler, the event types it reads, and the worker kind that runs it. Each reads the outbox from its
 * own position in outbox_consumer; the retention keeps every event until each consumer here has passed
 * it. A consumer whose kind does nothing else is started from here (startConsumerKind, workers/registry.ts).
 * Adding one: an entry here and its row in docs/architecture.md's table; a new kind also its line in
 * shared/runtime/worker-kinds.ts and its service in docker-compose.yml (test/unit/worker-kinds.test.ts
 * says what is missing). A new consumer starts at the end of the relayed events.
 */
const consumers = {
  /** The audit log: each batch's records (their messages naming employees and walls) in one insert. */
  audit: { kind: 'audit', ...eventConsumer('audit', async (events, tx) => void (await writeAuditRecords(tx, await auditRecordsOf(tx, events)))) },
  /**
   * The statistics roll-ups for /insights: one statement per batch, reading the outbox rows in the
   * database. A batch costs about one write per bucket it touches, and a floor's events share their
   * buckets (the hour of a wall, a user, a sku), so it gathers 4 times longer than the others: the
   * roll-ups follow the floor by about 2 s (OUTBOX_CONSUMER_INTERVAL_MS × 4).
   */
  stats: { kind: 'stats', name: 'stats', readsEvents: false, gather: 4, handle: async (batch, tx) => void (await applyStatsEventRange(tx, batch)) },
  /** License plates rendered ahead when a slot completes, in the formats the client prints. */
  labels: {
    kind: 'labels',
    ...eventConsumer('labels', async (events, tx, { config }) => void (await prerenderCompletedSlots(tx, events, config.LABEL_PRERENDER_DAYS)), ['sort-box.completed']),
  },
  /**
   * Automatic prints: a print job for each order completed in a wall that prints by itself (autoPrint),
   * sent by the print sender of the labels worker kind (workers/labels/print-worker.ts).
   */
  printing: { kind: 'labels', ...eventConsumer('printing', async (events, tx) => void (await autoPrintCompletedOrders(tx, events)), ['sort-box.completed']) },
  /** Webhook deliveries: written as pending rows that the webhook senders work through (workers/webhooks). */
  webhooks: { kind: 'webhooks', name: 'webhooks', readsEvents: false, handle: async (batch, tx) => void (await scheduleDeliveries(tx, batch)) },
  /**
   * The light gateway: the events that change a light, shown by the gateway's engine (its drivers, built
   * by workers/lights/lights.worker.ts). Read at every relay notification, gathering nothing: a light is
   * due at once. Few attempts: a wall missed is set again at the gateway's next full resync
   * (LIGHTS_RESYNC_MS), and a stale light is worse than a late one.
   */
  lights: {
    kind: 'lights',
    settings: { intervalMs: 0 },
    ...eventConsumer('lights', (events, _tx, ctx) => handleLightsEvents(need(ctx.lights, 'the light gateway'), events), LIGHT_EVENT_TYPES, 5),
  },
} satisfies Record<string, ConsumerEntry>;

export type EventConsumerName = keyof typeof consumers;
export const EVENT_CONSUMERS: Record<EventConsumerName, ConsumerEntry> = consumers;

/**
 * Starts the consumers of a worker kind (workers/registry.ts), each once; `afterCommit`: what a worker
 * of the kind does after a consumer's batch committed (the print sender looks for the jobs it made).
 */
export async function startConsumerKind(
  runtime: Runtime,
  kind: WorkerKind,
  afterCommit: Partial<Record<EventConsumerName, () => void>> = {},
): Promise<void> {
  const mine = Object.values(EVENT_CONSUMERS).filter((c) => c.kind === kind);
  if (!mine.length) throw new Error(`worker kind '${kind}' has neither a worker nor a consumer`);
  for (const c of mine) {
    await startEventConsumer(runtime, c, {
      name: `${c.name} consumer`,
      settings: settingsOf(c, consumerSettings(runtime.config)),
      afterCommit: afterCommit[c.name as EventConsumerName],
    });
  }
}

/** A consumer's own settings over the process's `base` ones. */
export function settingsOf(c: ConsumerEntry, base: ConsumerSettings): Partial<ConsumerSettings> {
  const gather = c.gather ?? 1;
  return { ...(gather === 1 ? {} : { intervalMs: base.intervalMs * gather, batchSize: base.batchSize * gather }), ...c.settings };
}
