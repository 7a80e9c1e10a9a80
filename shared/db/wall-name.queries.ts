import { query } from './named-sql';

/**
 * Another wall of the client with this name in any letter case (lower() on both sides, exactly as the
 * unique index compares them), other than `wallId` (0 for a wall not created yet). Both the API's create
 * and the wall actor's rename ask it, so the two answers cannot drift apart.
 */
export const wallNamed = query<{ clientId: number; name: string; wallId: number }, { id: number; name: string }>('wall-named', `
select id, name from wall where client_id = :clientId::int and lower(name) = lower(:name::text) and id <> :wallId::int limit 1`);
