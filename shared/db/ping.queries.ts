import { query } from './named-sql';

/**
 * Whether PostgreSQL answers at all: the readiness probe's check, and how a consumer tells an outage
 * (wait, count nothing) from an event that fails.
 */
export const databaseAnswers = query<Record<string, never>, { ok: number }>('database-answers', 'select 1 as ok');
