import { query } from '../../../shared/db/named-sql';

/* What a command's wall is when the request names something else (wall-resolver.ts): one key lookup each. */

export const wallOfSessionToken = query<{ clientId: number; token: string }, { wall_id: number }>('resolve-wall-of-session', `
select wall_id from sorter_session where client_id = :clientId::int and token = :token::text`);

export const wallOfItemId = query<{ clientId: number; itemId: number }, { wall_id: number }>('resolve-wall-of-item', `
select wall_id from sort_box_item where client_id = :clientId::int and id = :itemId::int`);

export const wallOfSlotCrc = query<{ clientId: number; crc: string }, { wall_id: number }>('resolve-wall-of-slot', `
select wall_id from sort_box where client_id = :clientId::int and crc = :crc::text`);

export const wallOfClient = query<{ clientId: number; wallId: number }, { id: number }>('resolve-wall', `
select id from wall where client_id = :clientId::int and id = :wallId::int`);
