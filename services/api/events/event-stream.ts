import type { EntityManager } from '@mikro-orm/postgresql';
import { emSql } from '../../../shared/db/orm-sql';
import { AppError } from '../../../shared/errors/app-error';
import { parseWallEventMessage, toWallEvent, wallEventMessage, type WallEvent } from '../../../shared/events/channels';
import { REPLAY_LIMIT, lastRelayedOfWall, recentWallEvents, wallEventById, wallEventsAfter } from './event-stream.queries';
import type { WallEventsHub } from './wall-events.hub';

// Event ids are UUIDs (outbox_event.event_id). Anything else would fail inside PostgreSQL.
const EVENT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The event id a reconnecting hub saw last (SSE `Last-Event-ID`, WebSocket `?lastEventId=`): a UUID, else 400. */
export function parseLastEventId(value: string | null | undefined, name: string, location: 'header' | 'query'): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (EVENT_ID.test(value)) return value;
  const fieldError = { path: name, message: 'must be an event id (a UUID)', in: location };
  throw new AppError('validation-failed', `${name} must be the id of an event this stream sent (a UUID such as 0b7e4a5c-9c1d-4e55-8f3a-2d6b1c0e9f17).`, {
    errors: [fieldError],
  });
}

/** A hub connection's subscription: live events are held back until `start` hands them over. */
export interface WallFollower {
  /**
   * Sends the replayed events, then what arrived meanwhile, then every live event as it comes.
   * `end` is called when the stream can no longer be kept complete (it could not catch up after a
   * gap in the live feed): the caller closes it, and the client reconnects with its last event id.
   */
  start(send: (raw: string, event: () => WallEvent) => void, end: () => void): void;
  /** Removes the wall listener. Idempotent; never rejects. */
  stop(): Promise<void>;
}

/**
 * Follows a wall's events for one hub connection: live events from the hub, and, when the client
 * says which event it saw last, the relayed events after it from the outbox first. Every message
 * carries its event's outbox id, the wall's order: the connection sends each event once, in order, and
 * drops what it already sent or what predates it (a duplicate, a relay's re-publish). When the hub's
 * subscription was lost and is back, the connection catches up from the outbox after the last event it
 * sent, holding live events meanwhile, or ends when it cannot. Everything that can fail at the start
 * (the queries, the Redis subscription) happens here, before the caller answers: a failure leaves no
 * listener behind.
 */
export async function followWall(em: EntityManager, hub: WallEventsHub, clientId: number, wallId: number, lastEventId: string | undefined): Promise<WallFollower> {
  let send: ((raw: string, event: () => WallEvent) => void) | null = null;
  let end: (() => void) | null = null;
  let catchingUp = false;
  /**
   * The subscription was lost and is not known to be back: messages wait in `held` (those that arrive
   * right after the resubscription follow a gap; delivered, they would move `last` past the events
   * published meanwhile, and the catch-up would never send those).
   */
  let suspended = false;
  /** A resumption came before the connection started: the start catches up. */
  let resumedBeforeStart = false;
  /** The outbox id of the last event sent, or where the stream starts: what is at or before it is not sent. */
  let last = 0n;
  const seenWithoutId = new Set<string>();
  const held: string[] = [];
  const deliver = (message: string) => {
    const { outboxId, raw } = parseWallEventMessage(message);
    // Parsed only for a sender that reads the event (SSE: its id and type); a WebSocket sends the text as it came.
    let event: WallEvent | undefined;
    const parsed = () => (event ??= JSON.parse(raw) as WallEvent);
    if (outboxId !== null) {
      if (outboxId <= last) return;
      last = outboxId;
    } else {
      // A message of a relay without outbox ids (a rolling upgrade): by its event id.
      const { id } = parsed();
      if (seenWithoutId.has(id)) return;
      seenWithoutId.add(id);
      if (seenWithoutId.size > 10_000) seenWithoutId.delete(seenWithoutId.values().next().value as string);
    }
    send!(raw, parsed);
  };
  const replayAfter = async (after: bigint): Promise<string[]> => {
    const rows = await wallEventsAfter(emSql(em), { clientId, wallId, after: after.toString() });
    return rows.map((r) => wallEventMessage(String(r.id), toWallEvent(r)));
  };
  const catchUp = async () => {
    if (!send || catchingUp) return;
    catchingUp = true;
    try {
      for (;;) {
        const missed = await replayAfter(last);
        for (const m of missed) deliver(m);
        if (missed.length < REPLAY_LIMIT) break;
      }
      catchingUp = false;
      // Lost again meanwhile: what is held waits for the next resumption's catch-up.
      if (!suspended) for (const m of held.splice(0)) deliver(m);
    } catch {
      catchingUp = false;
      held.length = 0;
      end?.();
    }
  };

  // Where the stream starts, read before subscribing: the event the client saw last, else the wall's
  // last relayed event. Whatever is relayed after it reaches the connection, by the replay below or live.
  const [anchor] = lastEventId
    ? await wallEventById(emSql(em), { clientId, wallId, eventId: lastEventId })
    : [];
  if (anchor) {
    last = BigInt(anchor.id);
  } else {
    // No event id, or one this wall never had: the stream goes on from now.
    const [head] = await lastRelayedOfWall(emSql(em), { clientId, wallId });
    last = head?.id ? BigInt(head.id) : 0n;
  }
  const stop = await hub.subscribe(wallId, {
    message(m) {
      if (send && !catchingUp && !suspended) deliver(m);
      // Bounded: a connection that never starts must not hold a wall's traffic.
      else if (held.length < REPLAY_LIMIT) held.push(m);
    },
    lost() {
      suspended = true;
    },
    resumed() {
      suspended = false;
      if (send) void catchUp();
      else resumedBeforeStart = true;
    },
  });
  let replay: string[];
  try {
    replay = await replayAfter(last);
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    start(fn, onEnd) {
      if (send) return;
      send = fn;
      end = onEnd;
      for (const m of replay.splice(0)) deliver(m);
      if (suspended) return;
      if (resumedBeforeStart) void catchUp();
      else for (const m of held.splice(0)) deliver(m);
    },
    stop,
  };
}

/**
 * `GET /api/v1/events/recent?wallId=N&limit=L`: the wall's last L events as the stream sent them, oldest
 * first. A hub fills its feed with them on open, then follows the stream from the last one
 * (`lastEventId`), so nothing falls between the two and nothing shows twice.
 */
export async function recentEvents(em: EntityManager, clientId: number, wallId: number, limit: number): Promise<WallEvent[]> {
  const rows = await recentWallEvents(emSql(em), { clientId, wallId, limit });
  return rows.reverse().map(toWallEvent);
}
