import type { SqlDatabase, SqlRunner } from '../../shared/db/named-sql';
import { databaseAnswers } from '../../shared/db/ping.queries';
import { toWallEvent, type RelayedRow, type WallEvent } from '../../shared/events/channels';
import { MalformedEventError, safeDecodeEvent, type TypedWallEvent } from '../../shared/events/event-schemas';
import { recordFailedJob } from '../../shared/queue/failed-job.queries';
import type { Runtime } from '../../shared/runtime/runtime';
import { RELAYED_CHANNEL, localWaiter, notificationsOf, type Waiter } from './notifications';
import { relayFeedOf, type FedStep, type FeedReader } from './relay-feed';
import {
  consumerHasWork,
  lockConsumerPosition,
  nextEvents,
  nextRange,
  registerConsumer,
  relayedEvent,
  saveConsumerPosition,
  saveHandledPosition,
} from './consumer.queries';

/**
 * A relayed event with its outbox id: per wall, the outbox id order is the commit order of the wall's
 * commands (docs/architecture.md "Relay order"), which the light gateway's state goes by.
 */
export type RelayedEvent = WallEvent & { outboxId: string };

/** A consumer's batch: the relayed events with outbox ids in (after, through], in id order. */
export interface ConsumerBatch {
  after: string;
  through: string;
  /** The batch's events of the consumer's types; empty for a consumer that reads none (`readsEvents: false`). */
  events: RelayedEvent[];
}

/**
 * A consumer of the relayed events (docs/architecture.md "Event pipeline"). It reads the outbox itself,
 * in batches, from its position in `outbox_consumer`; `handle` runs in the transaction that records the
 * new position, so an effect in PostgreSQL is applied exactly once (both commit or neither), and an
 * effect outside (an MQTT message, an HTTP request) at least once.
 */
export interface ConsumerSpec {
  /** The consumer's name: its row in outbox_consumer. */
  name: string;
  /** Only events of these types reach `handle`; every type (internal ones included) when absent. */
  types?: readonly string[];
  /** false: no event is read into the process; `handle` works on the batch's range in SQL. */
  readsEvents?: boolean;
  /** Tries of an event that fails while the database answers, before it is passed over (OUTBOX_CONSUMER_ATTEMPTS unless given). */
  attempts?: number;
}

export interface EventConsumer<Ctx = unknown> extends ConsumerSpec {
  handle(batch: ConsumerBatch, tx: SqlRunner, ctx: ConsumerContext<Ctx>): Promise<void>;
}

/**
 * What a consumer's batch may need of its process: the settings, the log, and `Ctx`, what its worker
 * kind built for it at start (the light gateway's engine: workers/lights/lights.worker.ts).
 */
export type ConsumerContext<Ctx = unknown> = Pick<Runtime, 'config' | 'log'> & Ctx;

/** A relayed event decoded by its type's schema, with its outbox id. */
export type RelayedTypedEvent = TypedWallEvent & { outboxId: string };

/**
 * A consumer whose effect needs only the events: the interface of every event consumer table entry.
 * The handler gets the batch's events decoded by their types' schemas (shared/events/event-schemas.ts);
 * an event that fails its schema is recorded in failed_job (`consumer:<name>`, as an event passed over
 * after its attempts) in the batch's transaction and left out: retrying cannot make it valid.
 */
export function eventConsumer<Ctx = unknown>(
  name: string,
  handler: (events: RelayedTypedEvent[], tx: SqlRunner, ctx: ConsumerContext<Ctx>) => Promise<void>,
  types?: readonly string[],
  attempts?: number,
): EventConsumer<Ctx> {
  return {
    name,
    types,
    attempts,
    handle: async (batch, tx, ctx) => {
      const events: RelayedTypedEvent[] = [];
      for (const event of batch.events) {
        const r = safeDecodeEvent(event);
        if (r.ok) events.push({ ...r.event, outboxId: event.outboxId });
        else {
          await recordFailedJob(tx, { queue: `consumer:${name}`, jobName: event.type, jobId: event.id, data: JSON.stringify({ consumer: name, event }), error: r.error.message.slice(0, 2000), attempts: 1 });
          ctx.log.error({ consumer: name, eventId: event.id, type: event.type, err: r.error.message }, 'event does not match its schema; recorded in failed_job');
        }
      }
      if (events.length) await handler(events, tx, ctx);
    },
  };
}

export type StepResult = { status: 'standby' | 'idle' } | { status: 'done'; batch: ConsumerBatch; full: boolean; saved: boolean };

/**
 * For a consumer that saves its position only now and then: the position it has handled itself
 * (`known`, null when it has none of its own) and whether this batch saves it (`save`).
 */
export interface Carried {
  known: string | null;
  save: boolean;
}

/**
 * One batch of a consumer, in one transaction: lock its position (a stand-by when another process holds
 * it), read what follows, apply it with `handle`, move the position. Throws what `handle` throws (the
 * transaction is rolled back: nothing applied, the position unmoved). With `carried` (positionSaveMs):
 * it reads after the position the process handled itself when that is further than the saved one, and
 * saves only when asked (or the batch is full, or nothing new follows an unsaved position).
 */
export async function consumeOnce<Ctx>(db: SqlDatabase, consumer: EventConsumer<Ctx>, batchSize: number, ctx: ConsumerContext<Ctx>, carried?: Carried): Promise<StepResult> {
  return db.transaction(async (tx) => {
    let saved: string | null = null;
    let after: string;
    let through: string | null;
    let events: RelayedEvent[] = [];
    let full: boolean;
    if (consumer.readsEvents === false) {
      const [row] = await lockConsumerPosition(tx, { name: consumer.name });
      if (!row) return { status: 'standby' as const };
      after = row.position;
      const [range] = await nextRange(tx, { after, batchSize });
      through = range.through;
      full = range.n >= batchSize;
    } else {
      // The position locked and the events after it read in one statement.
      const rows = await nextEvents(tx, { name: consumer.name, known: carried?.known ?? null, batchSize, types: consumer.types ? [...consumer.types] : null });
      if (!rows.length) return { status: 'standby' as const };
      saved = rows[0]!.saved;
      after = rows[0]!.position;
      through = rows[0]!.through;
      const read = rows.filter((r) => r.id !== null && r.id !== undefined) as RelayedRow[];
      events = read.map((r) => ({ ...toWallEvent(r), outboxId: r.id }));
      full = read.length >= batchSize;
    }
    if (through === null || BigInt(through) <= BigInt(after)) {
      // Nothing new: the position handled but not saved yet is saved now.
      if (saved !== null && BigInt(saved) < BigInt(after)) await saveConsumerPosition(tx, { name: consumer.name, position: after });
      return { status: 'idle' as const };
    }
    const batch = { after, through, events };
    await consumer.handle(batch, tx, ctx);
    const save = !carried || carried.save || full;
    if (save) await saveConsumerPosition(tx, { name: consumer.name, position: through });
    return { status: 'done' as const, batch, full, saved: save };
  });
}

/**
 * One batch of a consumer from the events the relay of its process handed over (relay-feed.ts), for a
 * consumer that saves its position now and then: no read of PostgreSQL. `handle` runs outside any
 * transaction (its effect is outside PostgreSQL, at least once). With `save` the position is saved
 * after, in a statement of its own; a stand-by when another process holds the consumer's position.
 */
export async function consumeFed<Ctx>(db: SqlDatabase, consumer: EventConsumer<Ctx>, fed: FedStep, ctx: ConsumerContext<Ctx>, save: boolean): Promise<StepResult> {
  const types = consumer.types ? new Set(consumer.types) : null;
  const events: RelayedEvent[] = [];
  for (const e of fed.events) if (!types || types.has(e.event.type)) events.push({ ...e.event, outboxId: e.outboxId });
  const batch = { after: fed.after, through: fed.through, events };
  await consumer.handle(batch, db, ctx);
  if (save && !(await saveHandledPosition(db, { name: consumer.name, position: fed.through })).length) return { status: 'standby' };
  return { status: 'done', batch, full: false, saved: save };
}

export interface ConsumerSettings {
  batchSize: number;
  pollMs: number;
  intervalMs: number;
  attempts: number;
  retryBaseMs: number;
  /**
   * 0: every batch saves the position in its transaction (an effect in PostgreSQL: exactly once).
   * Otherwise, for a consumer whose effect is outside PostgreSQL (at least once) and whose handler takes
   * an event again without harm: the position is saved at most this often (and when nothing new
   * follows, and at close); a batch in between reads after the position it handled itself. A crash
   * hands at most that long of events again. One round trip and one write less per batch. Such a
   * consumer that also reads at once (intervalMs 0: the light gateway) takes the steps of a relay
   * running in its process from memory (relay-feed.ts), its position saved in a statement of its own.
   */
  positionSaveMs: number;
}

/** Passes over the event at `through`, right after the position: recorded in failed_job, the position moved past it. */
async function skipEvent(db: SqlDatabase, consumer: ConsumerSpec, after: string, through: string, error: string, attempts: number): Promise<RelayedRow | null> {
  return db.transaction(async (tx) => {
    const [row] = await lockConsumerPosition(tx, { name: consumer.name });
    // Saved at `after`, or below it when the consumer saves its position now and then (positionSaveMs).
    if (!row || BigInt(row.position) > BigInt(after)) return null;
    const [event] = await relayedEvent(tx, { id: through });
    if (event) {
      // An event a consumer passes over after its attempts: queue `consumer:<name>`, job id the event id.
      await recordFailedJob(tx, {
        queue: `consumer:${consumer.name}`,
        jobName: event.type,
        jobId: event.event_id,
        data: JSON.stringify({ consumer: consumer.name, outboxId: through, event: toWallEvent(event) }),
        error: error.slice(0, 2000),
        attempts,
      });
    }
    await saveConsumerPosition(tx, { name: consumer.name, position: through });
    return event ?? null;
  });
}

/**
 * Waits until `ms` after `since` (a batch's gather), or until the loop is stopped: a stop wakes the waiter.
 * Notifications meanwhile are let go: the batch after the gather reads up to the horizon as it is then.
 * After each a millisecond's timer: a waiter whose listener is closed answers every wait at once.
 */
async function gather(waiter: Waiter, since: number, ms: number, stopped: () => boolean): Promise<void> {
  for (let left = since + ms - Date.now(); left > 0 && !stopped(); left = since + ms - Date.now()) {
    if (!(await waiter.wait(left))) return;
    waiter.clear();
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

/**
 * Runs a consumer until `stopped()`: a batch after every relay notification (at most one per
 * `intervalMs` while events trickle in; at once while batches are full), a look every `pollMs` anyway.
 * - PostgreSQL away: it waits and tries again, for as long as it takes, counting nothing: the events
 *   wait in the outbox, nothing is lost or given up.
 * - A batch that fails while PostgreSQL answers: the events up to that batch's end are taken one at a
 *   time, so the others are applied; the one that fails is tried `attempts` times (waits doubling from
 *   `retryBaseMs`), then recorded in failed_job (`consumer:<name>`) and passed over, so it never blocks
 *   the consumer forever.
 */
export async function runConsumer<Ctx>(
  db: SqlDatabase,
  consumer: EventConsumer<Ctx>,
  settings: ConsumerSettings,
  deps: {
    waiter: Waiter;
    ctx: ConsumerContext<Ctx>;
    stopped: () => boolean;
    afterCommit?: (batch: ConsumerBatch) => void;
    onStandby?: () => void;
    /** The steps of the relay of this process (positionSaveMs > 0 only). */
    feed?: FeedReader;
  },
): Promise<void> {
  const { waiter, ctx } = deps;
  const feed = settings.positionSaveMs > 0 ? deps.feed : undefined;
  const { log } = ctx;
  // While > position: one event per batch (after a failed batch), up to that batch's end.
  let singleUntil: bigint | null = null;
  let failures = 0;
  let outage = 0;
  let lastRun = 0;
  // The last batch was full (or one of a failed batch's events taken alone): more waits, so the next
  // batch goes on at once instead of waiting out the interval, which would cap a consumer that is
  // behind (after an outage, or a floor's burst) at a batch per interval.
  let behind = false;
  let lastAfter: string | null = null;
  // Whether the last wait ended by a notification (or a batch just ran, or the loop starts): a poll that
  // merely timed out first looks, in one cheap statement, whether anything waits at all.
  let woken = true;
  // positionSaveMs > 0: the position this process handled through, and whether it is saved.
  let known: string | null = null;
  let unsaved = false;
  let savedAt = Date.now();
  const saveDue = () => Date.now() - savedAt >= settings.positionSaveMs;
  const untilDue = () => (unsaved ? Math.max(1, Math.min(settings.pollMs, savedAt + settings.positionSaveMs - Date.now())) : settings.pollMs);
  while (!deps.stopped()) {
    // The relay of this process hands its steps over: while they follow the position, no read of
    // PostgreSQL. A step under way (its notification may come before its answer) is waited for.
    const fromFeed: boolean = feed !== undefined && known !== null && singleUntil === null && failures === 0 && outage === 0;
    if (fromFeed && feed) {
      await feed.settled(settings.pollMs);
      if (deps.stopped()) break;
      if (feed.covers(known!)) {
        if (unsaved && saveDue()) {
          // Nothing new since: the position is saved now, in a statement of its own.
          const saved = await saveHandledPosition(db, { name: consumer.name, position: known! }).then(
            (rows) => (rows.length ? 'saved' : 'standby'),
            (err: unknown) => {
              log.warn({ err, consumer: consumer.name }, 'could not save the position; trying again');
              return 'failed';
            },
          );
          if (saved === 'standby') {
            // Another process holds the position: it goes on from the saved one.
            known = null;
            unsaved = false;
            deps.onStandby?.();
          } else if (saved === 'saved') {
            unsaved = false;
            savedAt = Date.now();
          }
          woken = await waiter.wait(saved === 'failed' ? settings.retryBaseMs : settings.pollMs);
          continue;
        }
        // Woken by the notification of a step already handed over (or of one the relay's next step
        // covers), or a save not due yet: nothing to read. A back-up poll looks below, as ever.
        if (woken || unsaved) {
          waiter.clear();
          woken = await waiter.wait(untilDue());
          continue;
        }
      }
    }
    if (!woken && singleUntil === null && failures === 0 && outage === 0) {
      const work = await consumerHasWork(db, { name: consumer.name }).then(
        ([r]) => r?.work ?? true,
        () => true,
      );
      if (!work) {
        woken = await waiter.wait(settings.pollMs);
        continue;
      }
    }
    // Woken early: let the events of the next moments join this batch.
    if (!behind) await gather(waiter, lastRun, settings.intervalMs, deps.stopped);
    behind = false;
    if (deps.stopped()) break;
    lastRun = Date.now();
    // The batch reads up to the horizon as it is now: a relay notification that came before it needs no batch of its own.
    waiter.clear();
    let attempted: { after: string; through: string | null } = { after: '', through: null };
    const probe: EventConsumer<Ctx> = {
      ...consumer,
      handle: (batch, tx, c) => {
        attempted = { after: batch.after, through: batch.through };
        return consumer.handle(batch, tx, c);
      },
    };
    let result: StepResult;
    try {
      const size = singleUntil !== null ? 1 : settings.batchSize;
      const carried: Carried | undefined = settings.positionSaveMs > 0 ? { known, save: singleUntil !== null || saveDue() } : undefined;
      const fed: FedStep | null = fromFeed && feed ? feed.take(known!, size) : null;
      result = fed ? await consumeFed(db, probe, fed, ctx, saveDue()) : await consumeOnce(db, probe, size, ctx, carried);
    } catch (err) {
      const answers = await databaseAnswers(db, {}).then(
        () => true,
        () => false,
      );
      if (!answers) {
        if (outage++ === 0) log.warn({ err: (err as Error)?.message, consumer: consumer.name }, 'consumer waits for the database');
        await waiter.wait(Math.min(settings.pollMs * 2 ** Math.min(outage, 5), 30_000));
        continue;
      }
      outage = 0;
      const { after, through } = attempted;
      if (through === null) {
        // It failed before a batch was read: nothing to blame on an event.
        log.error({ err, consumer: consumer.name }, 'consumer failed; retrying');
        await waiter.wait(settings.retryBaseMs);
        continue;
      }
      if (singleUntil === null && BigInt(through) - BigInt(after) > 1n) {
        log.warn({ err, consumer: consumer.name, after, through }, 'consumer batch failed; taking its events one at a time');
        singleUntil = BigInt(through);
        continue;
      }
      failures = lastAfter === after ? failures + 1 : 1;
      lastAfter = after;
      // An event that fails its schema (MalformedEventError) is recorded at once: trying it again cannot make it valid.
      if (!(err instanceof MalformedEventError) && failures < (consumer.attempts ?? settings.attempts)) {
        log.warn({ err, consumer: consumer.name, after, attempt: failures }, 'consumer failed on an event; retrying');
        await waiter.wait(settings.retryBaseMs * 2 ** (failures - 1));
        continue;
      }
      const message = (err as Error)?.message ?? String(err);
      try {
        const skipped = await skipEvent(db, consumer, after, through, message, failures);
        if (skipped) log.error({ consumer: consumer.name, eventId: skipped.event_id, type: skipped.type, err: message }, 'event passed over after its attempts; recorded in failed_job');
        failures = 0;
        lastAfter = null;
      } catch (e) {
        log.error({ err: e, consumer: consumer.name }, 'could not record an event passed over; retrying');
        await waiter.wait(settings.retryBaseMs);
      }
      continue;
    }
    if (outage) log.info({ consumer: consumer.name }, 'consumer reaches the database again');
    outage = 0;
    if (result.status === 'standby') {
      // Another process holds the position: it goes on from the saved one.
      known = null;
      unsaved = false;
      deps.onStandby?.();
    }
    if (result.status === 'idle' && unsaved) {
      unsaved = false;
      savedAt = Date.now();
    }
    if (result.status === 'done') {
      known = result.batch.through;
      unsaved = !result.saved;
      if (result.saved) savedAt = Date.now();
      failures = 0;
      lastAfter = null;
      if (singleUntil !== null && BigInt(result.batch.through) >= singleUntil) singleUntil = null;
      deps.afterCommit?.(result.batch);
      if (result.full || singleUntil !== null || feed?.holds(result.batch.through)) {
        behind = result.full || singleUntil !== null;
        woken = true;
        continue;
      }
    }
    // A position not saved yet: look again by the time it is due (an idle batch saves it).
    woken = await waiter.wait(untilDue());
  }
  // Unless another process holds the consumer or has gone further.
  if (unsaved && known !== null) await saveHandledPosition(db, { name: consumer.name, position: known }).catch((err) => log.warn({ err, consumer: consumer.name }, 'could not save the position at close; its last events are handled again at start'));
}

/** The consumer settings of the process (OUTBOX_* settings). */
export function consumerSettings(config: Runtime['config']): ConsumerSettings {
  return {
    batchSize: config.OUTBOX_BATCH_SIZE,
    pollMs: config.OUTBOX_POLL_MS,
    intervalMs: config.OUTBOX_CONSUMER_INTERVAL_MS,
    attempts: config.OUTBOX_CONSUMER_ATTEMPTS,
    retryBaseMs: config.OUTBOX_CONSUMER_RETRY_BASE_MS,
    positionSaveMs: 0,
  };
}

/**
 * Starts one consumer in this process, closed with the runtime: it looks every `intervalMs` for relayed
 * events, or, with an interval of 0, at each of the relay's notifications.
 * Any number of processes may run it: one holds its position at a time, the others wait as stand-bys.
 */
export async function startEventConsumer<Ctx>(
  runtime: Pick<Runtime, 'config' | 'log' | 'workerSql' | 'onClose'>,
  consumer: EventConsumer<Ctx>,
  opts: {
    name: string;
    afterCommit?: (batch: ConsumerBatch) => void;
    /** Each time another process holds the consumer's position (this one is a stand-by). */
    onStandby?: () => void;
    settings?: Partial<ConsumerSettings>;
    /** What the consumer's worker kind built for it (ConsumerContext). */
    context: Ctx;
  },
): Promise<void> {
  const { log, workerSql, config } = runtime;
  await registerConsumer(workerSql, { name: consumer.name });
  const settings = { ...consumerSettings(config), ...opts.settings };
  // A consumer that reads at once (interval 0: the light gateway) listens for the relay's notifications;
  // one that gathers events anyway looks every interval instead: PostgreSQL wakes every listening
  // connection for every NOTIFY of the database, so listening costs each process a wake-up per commit.
  const listening = settings.intervalMs === 0;
  const waiter = listening ? notificationsOf(runtime).waiter(RELAYED_CHANNEL) : localWaiter();
  if (!listening) settings.pollMs = Math.min(settings.pollMs, settings.intervalMs);
  // One that reads at once and saves its position now and then takes the steps of a relay of this process from memory.
  const feed = listening && settings.positionSaveMs > 0 ? relayFeedOf(runtime).reader(() => waiter.wake()) : undefined;
  let stopped = false;
  const loop = runConsumer(workerSql, consumer, settings, {
    waiter,
    ctx: { ...opts.context, config, log } as ConsumerContext<Ctx>,
    stopped: () => stopped,
    afterCommit: opts.afterCommit,
    onStandby: opts.onStandby,
    feed,
  }).catch((err) => log.fatal({ err, consumer: consumer.name }, 'consumer loop ended'));
  log.info({ consumer: consumer.name }, `${opts.name} started`);
  runtime.onClose(opts.name, async () => {
    stopped = true;
    waiter.wake();
    await loop;
    feed?.close();
  });
}
