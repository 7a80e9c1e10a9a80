import type { Runtime } from '../../shared/runtime/runtime';
import { failedJobRecorder } from '../../shared/queue/failed-job';
import { startPartitionHost } from '../../shared/commands/partition-host';
import { sortingHandlers } from './sorting.handlers';
import { WallActors, type ActorDeps } from './actor/wall-actor';
import { loadWall, warmActorConnection } from './queries/wall-load.queries';
import { earlierAnswer } from './queries/wall-write.queries';
import { productByCode, scanCandidates, scanCandidatesAnyWarehouse } from './queries/wall-reads.queries';

const NIL_UUID = '00000000-0000-0000-0000-000000000000';

/**
 * What the wall actors need from a process: the plain-SQL pool, the logger, the idle timeout. A test
 * that runs commands in-process builds its actors with it too, from these parts of a runtime alone.
 */
export function actorDeps(runtime: Pick<Runtime, 'sqlPool' | 'log' | 'config'>): ActorDeps {
  return { db: runtime.sqlPool(), log: runtime.log, sessionIdleTimeoutMs: runtime.config.SESSION_IDLE_TIMEOUT_MS };
}

/**
 * Worker kind `sorting`: holds a fair share of the wall partitions (shared/commands/partition-leases.ts)
 * and runs their commands through the wall actors, one at a time per wall, in arrival order.
 */
export async function startSortingWorker(runtime: Runtime): Promise<void> {
  // The commands' connections open and warm before the first partition is taken (a start, a scale-up).
  await runtime
    .sqlPool()
    .warm([
      { statement: warmActorConnection.statement, values: [] },
      // No wall or client has id 0, no command the nil UUID: each statement a wall's first commands
      // run is parsed and planned (and its tables' indexes read) for nothing; nothing is written.
      { statement: loadWall.statement, values: loadWall.statement.values({ clientId: 0, wallId: 0, itemIds: 0, sessionIds: 0 }) },
      { statement: earlierAnswer.statement, values: earlierAnswer.statement.values({ commandId: NIL_UUID, refusedEventId: NIL_UUID }) },
      { statement: productByCode.statement, values: productByCode.statement.values({ clientId: 0, code: '' }) },
      { statement: scanCandidates.statement, values: scanCandidates.statement.values({ clientId: 0, sku: '', picklistId: null, warehouseId: 0 }) },
      { statement: scanCandidatesAnyWarehouse.statement, values: scanCandidatesAnyWarehouse.statement.values({ clientId: 0, sku: '', picklistId: null }) },
    ])
    .catch((err: Error) => runtime.log.warn({ err: err.message }, 'could not warm the command connections; the first commands open them'));
  const actors = new WallActors(actorDeps(runtime), runtime.config.QUEUE_PARTITIONS);
  const host = await startPartitionHost(runtime.queueSettings, sortingHandlers(actors), {
    log: runtime.log,
    leaseTtlMs: runtime.config.SORTING_LEASE_TTL_MS,
    recordFailure: failedJobRecorder(() => runtime.orm.em.fork()),
    dropped: (partition) => actors.dropPartition(partition),
  });
  runtime.onClose('sorting workers', () => host.close());
}
