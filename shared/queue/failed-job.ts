import type { EntityManager } from '@mikro-orm/postgresql';
import type { FailureRecorder } from './job-queue';

/**
 * Records a job the queues gave up on in failed_job (PostgreSQL), so operators find final failures
 * with SQL after Redis has pruned its failed set. The same job failing again updates its row.
 */
export function failedJobRecorder(em: () => EntityManager): FailureRecorder {
  return async (f) => {
    await em().execute(
      `insert into failed_job (queue, job_name, job_id, data, error, attempts) values (?, ?, ?, ?::jsonb, ?, ?)
       on conflict (queue, job_id) do update set error = excluded.error, attempts = excluded.attempts, failed_at = now()`,
      [f.queue, f.jobName, f.jobId, JSON.stringify(f.data ?? null), f.error.slice(0, 2000), f.attempts],
    );
  };
}
