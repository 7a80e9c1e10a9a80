import { query } from '../db/named-sql';

/** A job the queues gave up on; the same job failing again updates its row. */
export const recordFailedJob = query<{ queue: string; jobName: string; jobId: string; data: string; error: string; attempts: number }>('failed-job-record', `
insert into failed_job (queue, job_name, job_id, data, error, attempts)
values (:queue::text, :jobName::text, :jobId::text, :data::jsonb, :error::text, :attempts::int)
on conflict (queue, job_id) do update set error = excluded.error, attempts = excluded.attempts, failed_at = now()`);
