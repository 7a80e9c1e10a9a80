import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError, notFound } from '../../shared/errors/app-error';
import type { IWall } from '../../shared/db/entities';
import type { Orm } from '../../shared/db/orm';
import type { CommandJobInfo, CommandOutcome } from '../../shared/queue/command-job';
import type { CommandName, CommandResults } from '../../shared/queue/commands';
import type { Logger } from '../../shared/logging/logger';
import { PreparedSql, runPrepared } from './prepared-sql';
import { newOutboxEvent, type NewOutboxEvent } from '../../shared/events/outbox-event';
import type { EventType } from '../../shared/events/event-types';
import type { EventData } from '../../shared/events/event-data';
import { COMMAND_REFUSED, commandRefusedEventId, type CommandRefusedData } from '../../shared/events/command-refused';

/** The wall as a command sees it: read under its row lock. */
export type LockedWall = Pick<IWall, 'id' | 'clientId' | 'name' | 'isActive' | 'maxSorters' | 'warehouseId' | 'workflow'>;

export interface WallCommandContext {
  tx: EntityManager;
  /** The wall, locked FOR UPDATE for the whole transaction. */
  wall: LockedWall;
  now: Date;
  /**
   * Adds an outbox event to this transaction (docs/api.md §8): committed with the change or not at all.
   * Only the known event types, each with its own data (shared/events/event-data.ts).
   */
  emit<T extends EventType>(type: T, data: EventData<T>): void;
  /** What the command has found out so far (session, order, slot), for the audit record should it be refused. */
  note(facts: Partial<Pick<CommandRefusedData, 'sessionId' | 'orderId' | 'crc' | 'sortBoxItemId' | 'picklistId'>>): void;
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

// Locks the wall and, in the same round trip, looks for this command's earlier answer: a job handed
// out again while its first run is still going waits on the lock for that run to commit, then finds
// the answer instead of applying twice.
const LOCK_WALL_SQL = new PreparedSql('lock-wall', `
select w.id, w.client_id, w.name, w.is_active, w.max_sorters, w.warehouse_id, w.workflow,
       (select ac.result from applied_command ac where ac.command_id = ?) as prior
  from wall w where w.id = ? and w.client_id = ? for update of w`);

// The outbox events (NewOutboxEvent as JSON) and the applied-command record, in one statement.
const RECORD_SQL = new PreparedSql('record-command', `
with events as (
  insert into outbox_event (event_id, client_id, wall_id, type, occurred_at, data)
  select e."eventId", e."clientId", e."wallId", e.type, e."occurredAt", e.data
    from jsonb_to_recordset(?::jsonb) as e("eventId" uuid, "clientId" int, "wallId" int, type text, "occurredAt" timestamptz, data jsonb)
  returning 1)
insert into applied_command (command_id, client_id, wall_id, name, partition, job_id, result, applied_at)
values (?, ?, ?, ?, ?, ?, ?::jsonb, ?)`);

interface WallRow {
  id: number;
  client_id: number;
  name: string;
  is_active: boolean;
  max_sorters: number;
  warehouse_id: number | null;
  workflow: IWall['workflow'];
  prior: unknown;
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
  const facts: Partial<CommandRefusedData> = {};
  let wallFound = false;
  for (let attempt = 1; ; attempt++) {
    try {
      // A fresh entity manager per attempt: nothing of a rolled-back attempt may carry over.
      const value = await deps.orm.em.fork().transactional(async (tx) => {
        const [row] = await runPrepared<WallRow>(tx, LOCK_WALL_SQL, [job.commandId, target.wallId, target.clientId]);
        if (!row) throw notFound(`Wall ${target.wallId}`);
        wallFound = true;
        if (row.prior !== null && row.prior !== undefined) return row.prior as CommandResults[N];
        const wall: LockedWall = {
          id: row.id,
          clientId: row.client_id,
          name: row.name,
          isActive: row.is_active,
          maxSorters: row.max_sorters,
          warehouseId: row.warehouse_id,
          workflow: row.workflow,
        };
        const now = new Date();
        const events: NewOutboxEvent[] = [];
        const emit: WallCommandContext['emit'] = (type, data) => {
          events.push(newOutboxEvent(target.clientId, wall.id, type, data, now));
        };
        const result = await useCase({ tx, wall, now, emit, note: (f) => Object.assign(facts, f) });
        // Entities the use-case changed through the ORM are written first; then the record.
        await tx.flush();
        await runPrepared(tx, RECORD_SQL, [
          JSON.stringify(events),
          job.commandId, target.clientId, target.wallId, name, job.partition, job.jobId, JSON.stringify(result ?? null), now,
        ]);
        return result;
      });
      return { ok: true, value };
    } catch (err) {
      if (err instanceof AppError) {
        await recordRefusal(deps, name, job, target, wallFound, facts, err);
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

const REFUSAL_SQL = new PreparedSql('record-refusal', `
insert into outbox_event (event_id, client_id, wall_id, type, occurred_at, data)
values (?, ?, ?, '${COMMAND_REFUSED}', now(), ?::jsonb) on conflict (event_id) do nothing`);

const num = (v: unknown): number | null => (typeof v === 'number' ? v : null);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/**
 * A refusal rolled its transaction back; it is recorded in a transaction of its own, as an internal
 * `command.refused` outbox event (audit, statistics), with an id derived from the command's id, so a
 * command delivered twice records its refusal once.
 */
async function recordRefusal(
  deps: SortingDeps,
  name: CommandName,
  job: CommandJobInfo,
  target: { clientId: number; wallId: number },
  wallFound: boolean,
  facts: Partial<CommandRefusedData>,
  err: AppError,
): Promise<void> {
  const p = target as Record<string, unknown>;
  const data: CommandRefusedData = {
    command: name,
    code: err.code,
    detail: err.message,
    sessionId: facts.sessionId ?? num(p.sessionId),
    userId: num(p.userId),
    barcode: str(p.barcode),
    barcodeInputMethod: str(p.barcodeInputMethod),
    sortBoxItemId: facts.sortBoxItemId ?? num(p.itemId),
    crc: facts.crc ?? str(p.crc),
    orderId: facts.orderId ?? null,
    picklistId: facts.picklistId ?? num(p.picklistId),
  };
  try {
    await runPrepared(deps.orm.em.fork(), REFUSAL_SQL, [
      commandRefusedEventId(job.commandId), target.clientId, wallFound ? target.wallId : null, JSON.stringify(data),
    ]);
  } catch (e) {
    // The answer matters more than its audit record: the refusal still goes back to the caller.
    deps.log.error({ err: e, command: name, commandId: job.commandId }, 'could not record a refused command');
  }
}
