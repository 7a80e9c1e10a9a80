import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../../shared/errors/app-error';
import { toWallEvent, type OutboxEventRow, type WallEvent } from '../../../shared/events/channels';
import type { WallEventsHub } from './wall-events.hub';

const REPLAY_LIMIT = 1000;
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
  /** Sends the replayed events, then what arrived meanwhile, then every live event as it comes. */
  start(send: (event: WallEvent, raw: string) => void): void;
  /** Removes the wall listener. Idempotent; never rejects. */
  stop(): Promise<void>;
}

/**
 * Follows a wall's events for one hub connection: live events from the hub, and, when the client
 * says which event it saw last, the published events after it from the outbox first. Duplicates
 * between the two are dropped by event id. Everything that can fail (the Redis subscription, the
 * replay query) happens here, before the caller answers: a failure leaves no listener behind.
 */
export async function followWall(em: EntityManager, hub: WallEventsHub, wallId: number, lastEventId: string | undefined): Promise<WallFollower> {
  const seen = new Set<string>();
  let send: ((event: WallEvent, raw: string) => void) | null = null;
  const held: string[] = [];
  const deliver = (raw: string) => {
    const event = JSON.parse(raw) as WallEvent;
    if (seen.has(event.id)) return;
    seen.add(event.id);
    if (seen.size > 10_000) seen.delete(seen.values().next().value as string);
    send!(event, raw);
  };
  const stop = await hub.subscribe(wallId, (raw) => {
    if (send) deliver(raw);
    // Bounded: a connection that never starts must not hold a wall's traffic.
    else if (held.length < REPLAY_LIMIT) held.push(raw);
  });
  const replay: string[] = [];
  if (lastEventId) {
    try {
      const rows = await em.execute<OutboxEventRow[]>(
        `select event_id, type, occurred_at, client_id, wall_id, data from outbox_event
          where wall_id = ? and published_at is not null
            and id > (select id from outbox_event where event_id = ? and wall_id = ?)
          order by id limit ${REPLAY_LIMIT}`,
        [wallId, lastEventId, wallId],
      );
      for (const r of rows) replay.push(JSON.stringify(toWallEvent(r)));
    } catch (err) {
      await stop();
      throw err;
    }
  }
  return {
    start(fn) {
      if (send) return;
      send = fn;
      for (const raw of replay.splice(0)) deliver(raw);
      for (const raw of held.splice(0)) deliver(raw);
    },
    stop,
  };
}
