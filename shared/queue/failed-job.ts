import type { EntityManager } from '@mikro-orm/postgresql';
import { emSql } from '../db/orm-sql';
import { recordFailedJob } from './failed-job.queries';
import type { FailureRecorder } from './job-queue';

/**
 * Records a job the queues gave up on in failed_job (PostgreSQL), so operators find final failures
 * with SQL after Redis has pruned its failed set. The same job failing again updates its row.
 */
export function failedJobRecorder(em: () => EntityManager): FailureRecorder {
  return async (f) => {
    await recordFailedJob(emSql(em()), {
      queue: f.queue,
      jobName: f.jobName,
      jobId: f.jobId,
      data: JSON.stringify(f.data ?? null),
      error: f.error.slice(0, 2000),
      attempts: f.attempts,
    });
  };
}
