import { query } from '../../../../shared/db/named-sql';

/* The wall statements of the API outside the command path: names and counts. */

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
