import type { Runtime } from '../../shared/runtime/runtime';
import { failedJobRecorder } from '../../shared/queue/failed-job';
import { startCommandWorkers } from '../../shared/queue/queue-module';
import { sortingHandlers } from './sorting.handlers';
import type { SortingDeps } from './wall-command';

/** What the sorting use-cases need from a process: the plain-SQL pool, the logger, the idle timeout. */
export function sortingDeps(runtime: Runtime): SortingDeps {
  return { db: runtime.sqlPool(), log: runtime.log, sessionIdleTimeoutMs: runtime.config.SESSION_IDLE_TIMEOUT_MS };
}

/** Worker kind `sorting`: applies the workflow commands of every wall partition, in order. */
export async function startSortingWorker(runtime: Runtime): Promise<void> {
  const handlers = sortingHandlers(sortingDeps(runtime));
  const running = await startCommandWorkers(runtime.queueSettings, handlers, runtime.log, failedJobRecorder(() => runtime.orm.em.fork()));
  runtime.onClose('sorting workers', () => running.close());
}
