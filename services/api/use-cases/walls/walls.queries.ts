import { query } from '../../../../shared/db/named-sql';

/* The wall statements of the API outside the command path: names, counts, and versions moved by writers outside the queue. */

/** Slots per wall of the client. */
export const slotCounts = query<{ clientId: number }, { wall_id: number; n: number }>('wall-slot-counts', `
select wall_id, count(*)::int as n from sort_box where client_id = :clientId::int group by wall_id`);

/** Connected sessions per wall of the client. */
export const connectedSessionCounts = query<{ clientId: number }, { wall_id: number; n: number }>('wall-session-counts', `
select wall_id, count(*)::int as n from sorter_session where client_id = :clientId::int and status = 'Connected' group by wall_id`);

/** The counts of one wall. */
export const countsOfOneWall = query<{ clientId: number; wallId: number }, { slot_count: number; connected_sorters: number }>('wall-counts', `
select (select count(*)::int from sort_box where client_id = :clientId::int and wall_id = :wallId::int) as slot_count,
       (select count(*)::int from sorter_session where client_id = :clientId::int and wall_id = :wallId::int and status = 'Connected') as connected_sorters`);

/*
 * Moving wall versions (wall-versions.ts): the walls locked in id order, so two uploads never deadlock
 * on them, and their version moved.
 */
const moveVersions = (walls: string) => `
with locked as (select id from wall where client_id = :clientId::int and id in (${walls}) order by id for update)
update wall w set version = w.version + 1 from locked where w.id = locked.id`;

/** Every wall of the client. */
export const moveEveryWallVersion = query<{ clientId: number }>('wall-versions-every-wall', moveVersions('select id from wall where client_id = :clientId::int'));

/** The walls holding one of the orders (a JSON array of ids) in a slot. */
export const moveVersionsOfOrderWalls = query<{ clientId: number; orderIds: string }>(
  'wall-versions-of-orders',
  moveVersions('select wall_id from sort_box where client_id = :clientId::int and order_id in (select value::int from jsonb_array_elements_text(:orderIds::jsonb))'),
);
