import { query } from './named-sql';

/** What the server accepts from ordinary users. Through PgBouncer these are the server's settings too (the pooler passes them through). */
export const serverConnectionLimit = query<Record<string, never>, { n: number }>('server-connection-limit', `
select (select setting::int from pg_settings where name = 'max_connections')
     - (select setting::int from pg_settings where name = 'superuser_reserved_connections') as n`);
