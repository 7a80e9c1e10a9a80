import type { Runtime } from '../../shared/runtime/runtime';
import { failedJobRecorder } from '../../shared/queue/failed-job';
import { startCommandWorkers } from '../../shared/queue/queue-module';
import { sortingHandlers } from './sorting.handlers';
import { usePreparedStatements } from './prepared-sql';

/** Worker kind `sorting`: applies the workflow commands of every wall partition, in order. */
export async function startSortingWorker(runtime: Runtime): Promise<void> {
  usePreparedStatements(runtime.config.DATABASE_PREPARED_STATEMENTS);
  const handlers = sortingHandlers({
    orm: runtime.orm,
    log: runtime.log,
    sessionIdleTimeoutMs: runtime.config.SESSION_IDLE_TIMEOUT_MS,
  });
  const running = await startCommandWorkers(runtime.queueSettings, handlers, runtime.log, failedJobRecorder(() => runtime.orm.em.fork()));
  runtime.onClose('sorting workers', () => running.close());
}
