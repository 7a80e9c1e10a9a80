import { query } from '../../../../shared/db/named-sql';

/**
 * The client's active Admins, locked, so two Admins demoting each other at once cannot both succeed
 * (the second waits and then sees one Admin left).
 */
export const lockActiveAdmins = query<{ clientId: number }, { id: number }>('employees-lock-active-admins', `
select id from employee where client_id = :clientId::int and is_active and 'Admin' = any(roles) order by id for update`);
