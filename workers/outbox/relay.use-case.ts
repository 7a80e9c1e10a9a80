import type { SqlRunner } from '../../shared/db/named-sql';
import { toWallEvent, wallEventMessage, wallEventsChannel, wallViewChangedMessage, wallViewChangesChannel, type RelayedRow, type WallEvent } from '../../shared/events/channels';
import type { Logger } from '../../shared/logging/logger';
import type { Redis } from '../../shared/redis/redis';
import type { RelayFeed } from '../pipeline/relay-feed';
import { advanceHorizon, recentlyRelayed, relayedBetween } from './outbox.queries';

/** A relayed event: its outbox id (its place in the relay order, and in its wall's order) and the event. */
export interface RelayedEvent {
  outboxId: string;
  event: WallEvent;
}

const toRelayed = (r: RelayedRow): RelayedEvent => ({ outboxId: String(r.id), event: toWallEvent(r) });

export const RELAY_BATCH = 500;

export interface RelayStep {
  /** false when another relay is the active one. */
  locked: boolean;
  /** Events this relay publishes again on becoming the active one (its predecessor's last seconds). */
  republish: RelayedEvent[];
  /** The events the horizon passed that this relay had not read yet, in id order (at most a batch). */
  events: RelayedEvent[];
  /** Whether more events wait below the horizon (a full batch was read). */
  more: boolean;
  /**
   * The outbox ids `events` are every relayed event of, (after, through]: `after` where the relay's
   * previous step read through, `through` where this one did. Null when the step did not follow one
   * of this relay (on becoming the active one, or a stand-by).
   */
  range: { after: string; through: string } | null;
}

/**
 * The relay's steps (docs/architecture.md "Relay order"): each moves the horizon below which every outbox
 * event is committed (one statement, its own transaction, no outbox row written) and then reads the
 * events it passed, in id order, for the hubs. It keeps, between steps, the candidate horizon (an id
 * and the transactions that held the outbox's write lock when it was read), the first id it found
 * missing above the horizon (the lock table is read only when that one is still missing at the next
 * step) and how far it has read. A stand-by forgets them: on becoming the active one it starts from the
 * horizon it finds.
 */
export class Relay {
  private candidate: string | null = null;
  private holders: string[] | null = null;
  /** The first outbox id the last step found missing right above the horizon ('0': none); null before a first step. */
  private gap: string | null = null;
  /** The last outbox id read for the hubs; null while this relay is not the active one. */
  private read: string | null = null;
  /**
   * Whether a step that moves the horizon notifies `outbox_relayed`, which wakes the light gateways of
   * other processes (this one's takes the steps in memory): the outbox worker clears it while no other
   * process listens.
   */
  notifyOthers = true;

  constructor(
    private readonly db: SqlRunner,
    private readonly batchSize = RELAY_BATCH,
  ) {}

  async step(): Promise<RelayStep> {
    // A failed step keeps what was read: the horizon may have moved past events not yet handed to the
    // hubs, and the next step must start from them (a relay that lost its lock meanwhile publishes some
    // twice, which hubs drop by outbox id). Only a step that finds another relay active forgets.
    const rows = await advanceHorizon(this.db, { candidate: this.candidate, holders: this.holders, gap: this.gap, after: this.read, batchSize: this.batchSize, notify: this.notifyOthers ? 'on' : 'off' });
    const row = rows[0];
    if (!row?.locked || !row.through) {
      this.forget();
      return { locked: false, republish: [], events: [], more: false, range: null };
    }
    this.candidate = row.next_candidate;
    this.holders = row.next_holders;
    this.gap = row.next_gap;
    if (this.read === null) {
      // Just became the active one: its predecessor's last seconds again, then what this step passed.
      const republish = (await recentlyRelayed(this.db, { through: row.before ?? row.through })).map(toRelayed);
      this.read = row.before ?? row.through;
      if (BigInt(row.through) <= BigInt(this.read)) return { locked: true, republish, events: [], more: false, range: null };
      const passed = await relayedBetween(this.db, { after: this.read, through: row.through, batchSize: this.batchSize });
      return { locked: true, republish, ...this.passed(passed, row.through), range: null };
    }
    // The step read the events it passed after this.read in the same round trip.
    const after = this.read;
    const passed = this.passed(rows.filter((r): r is typeof r & RelayedRow => !!r.id), row.through);
    return { locked: true, republish: [], ...passed, range: { after, through: this.read } };
  }

  /** Events read after this.read up to `through` (at most a batch): this.read moves past them. */
  private passed(rows: RelayedRow[], through: string): { events: RelayedEvent[]; more: boolean } {
    const more = rows.length >= this.batchSize;
    if (rows.length || BigInt(through) > BigInt(this.read!)) this.read = more ? rows[rows.length - 1]!.id : through;
    return { events: rows.map(toRelayed), more };
  }

  /** Whether the horizon waits for writers of an earlier step (false: it reached every id handed out when it last moved). */
  get waiting(): boolean {
    return this.candidate !== null || (this.gap !== null && this.gap !== '0');
  }

  private forget(): void {
    this.candidate = null;
    this.holders = null;
    this.gap = null;
    this.read = null;
  }
}

/**
 * A step of the relay whose events also go to the consumers of its process that read at every step
 * (workers/pipeline/relay-feed.ts): handed over when the step follows the relay's previous one; any
 * other step (becoming the active one, a stand-by, a failure) breaks the chain, and those consumers
 * read the outbox until a step follows their position again.
 */
export async function stepAndFeed(relay: Relay, feed: RelayFeed): Promise<RelayStep> {
  feed.begin();
  let step: RelayStep;
  try {
    step = await relay.step();
  } catch (err) {
    feed.broken();
    throw err;
  }
  if (step.locked && step.range) feed.push({ ...step.range, events: step.events });
  else feed.broken();
  return step;
}

/**
 * One step of a relay that has no memory of earlier steps: the horizon moves past every id handed out
 * when all of them are committed or no transaction holds the outbox's write lock (else to the last of
 * the committed ids right above it, or its candidate); the events it passed, at most
 * `batchSize`. `locked` is false when another relay is the active one.
 */
export async function relayOnce(db: SqlRunner, batchSize = RELAY_BATCH): Promise<{ locked: boolean; events: RelayedEvent[] }> {
  const { locked, events } = await new Relay(db, batchSize).step();
  return { locked, events };
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
    // First the walls whose events follow, to the API processes' wall view caches: a hub that reads its
    // wall after an event finds the event's change, even when the command's own notice never came (its
    // worker died between the commit and the answer, or its commit came after its answer's timeout).
    const walls = [...new Set(batch.flatMap((e) => (e.event.wallId === null ? [] : [e.event.wallId])))];
    if (walls.length > 0) pipeline.publish(wallViewChangesChannel(this.prefix), wallViewChangedMessage(walls));
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
