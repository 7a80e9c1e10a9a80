import { query } from '../../../../shared/db/named-sql';

/** The client's picklists among the ids (an import counts the ones it would create). */
export const knownPicklists = query<{ clientId: number; ids: string }, { id: number }>('admin-picklists-known', `
select id from picklist where client_id = :clientId::int and id in (select value::int from jsonb_array_elements_text(:ids::jsonb))`);
