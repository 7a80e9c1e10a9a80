import { query } from '../../../shared/db/named-sql';
import type { OutboxEventRow } from '../../../shared/events/channels';

/* Where a hub connection starts and what it replays (event-stream.ts), along the (client_id, wall_id, id) index of the outbox,
   relayed events only: those at or below the relay's horizon (outbox_horizon). */

/** The most events one replay reads; a connection further behind reads again after the last one. */
export const REPLAY_LIMIT = 1000;

/**
 * The wall's relayed events after outbox id :after, in their order (per wall the outbox id order is the
 * commit order and the relay's order), as hubs receive them.
 */
export const wallEventsAfter = query<{ clientId: number; wallId: number; after: string }, OutboxEventRow & { id: string }>('hub-replay', `
select id, event_id, type, occurred_at, client_id, wall_id, data from outbox_event
 where client_id = :clientId::int and wall_id = :wallId::int and id > :after::bigint and id <= (select through from outbox_horizon)
 order by id limit ${REPLAY_LIMIT}`);

/** The outbox id of the wall's event the client saw last. */
export const wallEventById = query<{ clientId: number; wallId: number; eventId: string }, { id: string }>('hub-anchor', `
select id from outbox_event where event_id = :eventId::uuid and client_id = :clientId::int and wall_id = :wallId::int`);

/** The wall's last relayed event. */
export const lastRelayedOfWall = query<{ clientId: number; wallId: number }, { id: string | null }>('hub-head', `
select max(id) as id from outbox_event where client_id = :clientId::int and wall_id = :wallId::int and id <= (select through from outbox_horizon)`);

/** The most events the hub's feed reads on open (GET /events/recent). */
export const RECENT_LIMIT_MAX = 200;

/** The wall's last :limit relayed events, newest first: a backward walk of the same index. */
export const recentWallEvents = query<{ clientId: number; wallId: number; limit: number }, OutboxEventRow & { id: string }>('hub-recent', `
select id, event_id, type, occurred_at, client_id, wall_id, data from outbox_event
 where client_id = :clientId::int and wall_id = :wallId::int and id <= (select through from outbox_horizon)
 order by id desc limit :limit::int`);
