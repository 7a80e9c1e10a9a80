import { randomUUID } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError, notFound } from '../../shared/errors/app-error';
import { AppliedCommand, OutboxEvent, Wall, type IWall } from '../../shared/db/entities';
import type { Orm } from '../../shared/db/orm';
import type { CommandJobInfo, CommandOutcome } from '../../shared/queue/command-job';
import type { CommandName, CommandResults } from '../../shared/queue/commands';
import type { Logger } from '../../shared/logging/logger';

export interface WallCommandContext {
  tx: EntityManager;
  /** The wall, locked FOR UPDATE for the whole transaction. */
  wall: IWall;
  now: Date;
  /** Adds an outbox event to this transaction (contract 8): committed with the change or not at all. */
  emit(type: string, data: Record<string, unknown>): void;
}

export interface SortingDeps {
  orm: Orm;
  log: Logger;
  sessionIdleTimeoutMs: number;
}

// Conflicts with another wall's transaction (the same order chosen on two walls, a deadlock):
// the transaction rolled back, so running the command again is safe.
const RETRYABLE_PG_CODES = new Set(['40001', '40P01', '23505']);
const MAX_ATTEMPTS = 3;

function isRetryable(err: unknown): boolean {
  const code = (err as { code?: string })?.code;
  return typeof code === 'string' && RETRYABLE_PG_CODES.has(code);
}

/**
 * Runs one workflow command as one PostgreSQL transaction: lock the wall row, let the use-case
 * decide (with its machines), write the changes, the outbox events and the applied-command record,
 * commit. A command already applied (its job handed out again after a crash) answers as before.
 */
export async function runWallCommand<N extends CommandName>(
  deps: SortingDeps,
  name: N,
  job: CommandJobInfo,
  target: { clientId: number; wallId: number },
  useCase: (ctx: WallCommandContext) => Promise<CommandResults[N]>,
): Promise<CommandOutcome<N>> {
  const em = deps.orm.em.fork();
  for (let attempt = 1; ; attempt++) {
    try {
      const value = await em.fork().transactional(async (tx) => {
        const wall = await tx.findOne(Wall, { id: target.wallId, clientId: target.clientId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
        if (!wall) throw notFound(`Wall ${target.wallId}`);
        // Checked under the wall lock: a job handed out again while its first run is still going
        // waits here for that run to commit, then finds its answer instead of applying twice.
        const prior = await tx.findOne(AppliedCommand, { commandId: job.commandId });
        if (prior) return prior.result as CommandResults[N];
        const now = new Date();
        const emit = (type: string, data: Record<string, unknown>) => {
          tx.create(OutboxEvent, { eventId: randomUUID(), clientId: target.clientId, wallId: wall.id, type, occurredAt: now, data });
        };
        const result = await useCase({ tx, wall, now, emit });
        tx.create(AppliedCommand, {
          commandId: job.commandId,
          clientId: target.clientId,
          wallId: target.wallId,
          name,
          partition: job.partition,
          jobId: job.jobId,
          result: result as unknown,
          appliedAt: now,
        });
        return result;
      });
      return { ok: true, value };
    } catch (err) {
      if (err instanceof AppError) {
        return { ok: false, problem: { code: err.code, detail: err.message, ...(err.errors ? { errors: err.errors } : {}) } };
      }
      if (attempt < MAX_ATTEMPTS && isRetryable(err)) {
        deps.log.debug({ err, command: name, attempt }, 'command conflicted with another transaction; running it again');
        continue;
      }
      throw err;
    }
  }
}
