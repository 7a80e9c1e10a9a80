import { AppError, notFound } from '../../shared/errors/app-error';
import type { IWall } from '../../shared/db/entities';
import type { SqlRunner } from '../../shared/db/named-sql';
import type { SqlPool } from '../../shared/db/sql-pool';
import type { CommandJobInfo, CommandOutcome } from '../../shared/queue/command-job';
import type { CommandName, CommandPayloads, CommandResults } from '../../shared/queue/commands';
import type { Logger } from '../../shared/logging/logger';
import { newOutboxEvent, type NewOutboxEvent } from '../../shared/events/outbox-event';
import type { EventType } from '../../shared/events/event-types';
import type { EventData } from '../../shared/events/event-data';
import { commandRefusedEventId, type CommandRefusedData } from '../../shared/events/command-refused';
import { lockWall, recordCommand, recordRefusal, type RecordParams } from './queries/command.queries';

/** The wall as a command sees it: read under its row lock. */
export type LockedWall = Pick<IWall, 'id' | 'clientId' | 'name' | 'isActive' | 'maxSorters' | 'warehouseId' | 'workflow'>;

/** An inactive wall refuses connections and scans (docs/api.md §6, §7). */
export function assertWallActive(wall: LockedWall): void {
  if (!wall.isActive) throw new AppError('wall-inactive', `Wall '${wall.name}' is inactive; a Manager can activate it in the hub.`);
}

export interface WallCommandContext {
  /** The command's transaction: its statements are the named queries of workers/sorting/queries/. */
  db: SqlRunner;
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
  /**
   * The command's record (the events emitted so far, and `result`, which the use-case must then return)
   * as parameters of the use-case's last write, whose SQL ends with recordCtes(): the record costs no
   * round trip of its own. Without it the record is written after the use-case, by itself.
   */
  record(result: unknown): RecordParams;
  /** The write that carried record() matched nothing (it was gated): nothing is recorded yet, the events are gone. */
  unrecord(): void;
}

export interface SortingDeps {
  /** The plain-SQL pool the commands run on (shared/db/sql-pool.ts). */
  db: SqlPool;
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
 * Runs one workflow command as one PostgreSQL transaction on a plain pg connection: lock the wall
 * row, let the use-case decide (with its machines) and write its changes, the outbox events and the
 * applied-command record (with its last write, or by themselves), commit. A command already applied
 * (its job handed out again after a crash) answers as before.
 */
export async function runWallCommand<N extends CommandName>(
  deps: SortingDeps,
  name: N,
  job: CommandJobInfo,
  /** The command's payload: its client and wall, and what a refusal's audit record names (user, barcode, item…). */
  target: CommandPayloads[N],
  useCase: (ctx: WallCommandContext) => Promise<CommandResults[N]>,
): Promise<CommandOutcome<N>> {
  const facts: Partial<CommandRefusedData> = {};
  let wallFound = false;
  for (let attempt = 1; ; attempt++) {
    try {
      // Nothing of a rolled-back attempt carries over: every attempt reads afresh.
      const value = await deps.db.transaction(async (db) => {
        const [row] = await lockWall(db, { commandId: job.commandId, wallId: target.wallId, clientId: target.clientId });
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
        let events: NewOutboxEvent[] = [];
        // Set by record(): the answer the use-case's last write recorded (unset again by unrecord()).
        const recorded: { yes: boolean; result: unknown } = { yes: false, result: undefined };
        const recordParams = (result: unknown): RecordParams => ({
          events: JSON.stringify(events),
          commandId: job.commandId,
          clientId: target.clientId,
          wallId: target.wallId,
          command: name,
          partition: job.partition,
          jobId: job.jobId,
          result: JSON.stringify(result ?? null),
          now,
        });
        const result = await useCase({
          db,
          wall,
          now,
          emit: (type, data) => {
            events.push(newOutboxEvent(target.clientId, wall.id, type, data, now));
          },
          note: (f) => Object.assign(facts, f),
          record: (r) => {
            const params = recordParams(r);
            events = [];
            recorded.yes = true;
            recorded.result = r;
            return params;
          },
          unrecord: () => {
            recorded.yes = false;
          },
        });
        if (!recorded.yes) await recordCommand(db, recordParams(result));
        else if (events.length > 0 || recorded.result !== result) {
          throw new Error(`command ${name}: its record was written before its last event or with another answer`);
        }
        return result;
      });
      return { ok: true, value };
    } catch (err) {
      if (err instanceof AppError) {
        await saveRefusal(deps, name, job, target, wallFound, facts, err);
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

const num = (v: unknown): number | null => (typeof v === 'number' ? v : null);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/**
 * A refusal rolled its transaction back; it is recorded in a transaction of its own, as an internal
 * `command.refused` outbox event (audit, statistics), with an id derived from the command's id, so a
 * command delivered twice records its refusal once.
 */
async function saveRefusal(
  deps: SortingDeps,
  name: CommandName,
  job: CommandJobInfo,
  target: CommandPayloads[CommandName],
  wallFound: boolean,
  facts: Partial<CommandRefusedData>,
  err: AppError,
): Promise<void> {
  const p: Record<string, unknown> = target;
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
    await recordRefusal(deps.db, {
      eventId: commandRefusedEventId(job.commandId),
      clientId: target.clientId,
      wallId: wallFound ? target.wallId : null,
      data: JSON.stringify(data),
    });
  } catch (e) {
    // The answer matters more than its audit record: the refusal still goes back to the caller.
    deps.log.error({ err: e, command: name, commandId: job.commandId }, 'could not record a refused command');
  }
}
