import { query } from '../../shared/db/named-sql';

/** Held until the seeding transaction ends: two processes starting on an empty database seed it once. */
export const seedLock = query<{ key: number }>('seed-lock', `select pg_advisory_xact_lock(:key::bigint)`);
