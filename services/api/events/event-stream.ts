import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../../shared/errors/app-error';
import type { WallEvent } from '../../../shared/events/channels';
import type { WallEventsHub } from './wall-events.hub';

const REPLAY_LIMIT = 1000;

/** Checks that the wall is the caller's (404 otherwise, like every other resource). */
export async function assertOwnWall(em: EntityManager, clientId: number, wallId: number): Promise<void> {
  const [row] = await em.execute<{ id: number }[]>('select id from wall where client_id = ? and id = ?', [clientId, wallId]);
  if (!row) throw new AppError('not-found', `Wall ${wallId} was not found.`);
}

/**
 * Follows a wall's events for one hub connection: live events from the hub, and, when the client
 * says which event it saw last (SSE Last-Event-ID, WebSocket ?lastEventId=), the published events
 * after it from the outbox first. Duplicates between the two are dropped by event id.
 */
export async function followWall(
  em: EntityManager,
  hub: WallEventsHub,
  wallId: number,
  lastEventId: string | undefined,
  send: (event: WallEvent, raw: string) => void,
): Promise<() => Promise<void>> {
  const seen = new Set<string>();
  let replaying = Boolean(lastEventId);
  const buffered: string[] = [];
  const deliver = (raw: string) => {
    const event = JSON.parse(raw) as WallEvent;
    if (seen.has(event.id)) return;
    seen.add(event.id);
    if (seen.size > 10_000) seen.delete(seen.values().next().value as string);
    send(event, raw);
  };
  const unsubscribe = await hub.subscribe(wallId, (raw) => (replaying ? buffered.push(raw) : deliver(raw)));
  if (lastEventId && /^[0-9a-f-]{36}$/i.test(lastEventId)) {
    const rows = await em.execute<{ event_id: string; type: string; occurred_at: Date; client_id: number; wall_id: number; data: unknown }[]>(
      `select event_id, type, occurred_at, client_id, wall_id, data from outbox_event
        where wall_id = ? and published_at is not null and type <> 'command.refused'
          and id > (select id from outbox_event where event_id = ? and wall_id = ?)
        order by id limit ${REPLAY_LIMIT}`,
      [wallId, lastEventId, wallId],
    );
    for (const r of rows) {
      const event: WallEvent = { id: r.event_id, type: r.type, occurredAt: new Date(r.occurred_at).toISOString(), clientId: r.client_id, wallId: r.wall_id, data: r.data };
      deliver(JSON.stringify(event));
    }
  }
  replaying = false;
  for (const raw of buffered.splice(0)) deliver(raw);
  return unsubscribe;
}
