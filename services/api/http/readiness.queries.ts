import { query } from '../../../shared/db/named-sql';

/** Whether PostgreSQL answers at all. */
export const ping = query<Record<string, never>, { ok: number }>('readiness-ping', 'select 1 as ok');
