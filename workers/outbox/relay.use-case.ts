import type { SqlRunner } from '../../shared/db/named-sql';
import { toWallEvent, wallEventMessage, wallEventsChannel, type RelayedRow, type WallEvent } from '../../shared/events/channels';
import type { Logger } from '../../shared/logging/logger';
import type { Redis } from '../../shared/redis/redis';
import { recentlyRelayed, stampOutboxEvents } from './outbox.queries';

/** An event as the relay stamped it: its outbox id (its place in its wall's order) and relay order. */
export interface RelayedEvent {
  outboxId: string;
  relaySeq: string;
  event: WallEvent;
}

const toRelayed = (r: RelayedRow): RelayedEvent => ({ outboxId: String(r.id), relaySeq: String(r.relay_seq), event: toWallEvent(r) });

export const RELAY_BATCH = 500;

/**
 * One relay step: stamps up to `batchSize` committed events with their relay order and notifies the
 * consumers, in one statement that commits on its own (outbox.queries.ts). `locked` is false when
 * another relay is the active one. Publishing to the hubs follows the commit (HubPublisher): the
 * consumers never wait for Redis, and Redis never holds the only copy of anything.
 */
export async function stampOnce(db: SqlRunner, batchSize = RELAY_BATCH): Promise<{ locked: boolean; events: RelayedEvent[] }> {
  const rows = await stampOutboxEvents(db, { batchSize });
  const locked = rows[0]?.locked ?? false;
  const events = rows.filter((r) => r.id !== null && r.id !== undefined).map((r) => toRelayed(r as RelayedRow));
  return { locked, events };
}

/**
 * What the previous active relay stamped in its last seconds (before `before`, the first relay_seq this
 * relay stamped): published again by a relay that takes over.
 */
export async function eventsToRepublish(db: SqlRunner, before: string | null): Promise<RelayedEvent[]> {
  return (await recentlyRelayed(db, { before })).map(toRelayed);
}


/**
 * Publishes relayed events to their walls' Redis channels, in relay order, after their commit. A batch
 * that cannot be published (Redis away) stays in memory, in order, and goes first at the next flush;
 * beyond `maxBacklog` events the oldest are dropped, with a warning: a hub that lost Redis for that
 * long catches up from the outbox when its subscription is back (services/api/events/event-stream.ts).
 */
export class HubPublisher {
  private backlog: RelayedEvent[] = [];
  private failing = false;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly log: Logger,
    private readonly maxBacklog = 10_000,
  ) {}

  /** Every relayed event goes to the hubs: they show refusals and device state too (docs/api.md §8). */
  add(events: readonly RelayedEvent[]): void {
    for (const e of events) this.backlog.push(e);
    const over = this.backlog.length - this.maxBacklog;
    if (over > 0) {
      this.backlog.splice(0, over);
      this.log.warn({ dropped: over }, 'hub events not published while Redis was away were dropped from memory; hubs catch up from the outbox');
    }
  }

  /** Whether events are waiting to be published. */
  get pending(): number {
    return this.backlog.length;
  }

  /** Publishes the backlog in one pipeline; false (and the backlog kept) when Redis does not take it. */
  async flush(): Promise<boolean> {
    if (this.backlog.length === 0) return true;
    const batch = this.backlog.slice();
    const pipeline = this.redis.pipeline();
    for (const e of batch) pipeline.publish(wallEventsChannel(this.prefix, e.event.wallId), wallEventMessage(e.outboxId, e.event));
    try {
      const results = await pipeline.exec();
      const failed = results?.find(([err]) => err);
      if (failed) throw failed[0];
    } catch (err) {
      if (!this.failing) this.log.warn({ err, events: batch.length }, 'could not publish events to the hubs; kept in order and tried again');
      this.failing = true;
      return false;
    }
    if (this.failing) this.log.info({ events: batch.length }, 'hub events published again');
    this.failing = false;
    // Events added while the pipeline ran stay for the next flush.
    const sent = new Set(batch);
    this.backlog = this.backlog.filter((e) => !sent.has(e));
    return true;
  }
}
