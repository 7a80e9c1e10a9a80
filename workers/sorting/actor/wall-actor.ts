import { AppError, notFound } from '../../../shared/errors/app-error';
import { isDependencyOutage } from '../../../shared/errors/outage';
import type { SqlDatabase, SqlRunner } from '../../../shared/db/named-sql';
import type { Logger } from '../../../shared/logging/logger';
import type { CommandJobInfo, CommandOutcome } from '../../../shared/commands/command-job';
import type { CommandName, CommandPayloads, CommandResults } from '../../../shared/commands/commands';
import { partitionOf } from '../../../shared/commands/partitioning';
import { PARTITION_JOBS_IN_HAND } from '../../../shared/queue/jobs';
import { COMMAND_REFUSED, commandRefusedEventId, type CommandRefusedData } from '../../../shared/events/command-refused';
import type { NewOutboxEvent } from '../../../shared/events/outbox-event';
import { loadWall } from '../queries/wall-load.queries';
import { appliedRecord, applyWrite, earlierAnswer, lockGroupLines, recordRefusal, recordRefusalFenced, reserveIds, type WriteParams } from '../queries/wall-write.queries';
import { applyChanges, WallChanges, type LineFigures } from './wall-changes';
import { WallReads } from './wall-reads';
import { stateFromJson } from './wall-rows';
import { WallState, type ItemRow, type LineRow, type SessionRow, type SlotRow, type WallRow } from './wall-state';

/*
 * The wall as an actor (docs/architecture.md "The wall actor"). The process holding a wall's partition
 * keeps the wall's state in memory and decides each command there, in arrival order, with the XState
 * machines (the use-cases of workers/sorting/use-cases). A decision is the answer and the rows it
 * changes (WallChanges); the actor writes it with the command's bookkeeping (its outbox events, its
 * applied_command record, with a keyed scan's key) in ONE statement, fenced by the wall's version:
 * the write holds only if the wall still has the version the decision was made against. Otherwise
 * (another holder wrote, an upload moved the version, a line changed under a candidate) nothing of it
 * stays, and the actor reloads and decides again.
 */

/** What a use-case gets: the wall's state (read only), where its decision goes, and the few reads it may make. */
export interface CommandContext {
  readonly state: WallState;
  readonly changes: WallChanges;
  readonly reads: WallReads;
  readonly now: Date;
  readonly idleTimeoutMs: number;
  /** What the command has found out so far (session, order, slot), for the audit record should it be refused. */
  note(facts: Partial<Pick<CommandRefusedData, 'sessionId' | 'orderId' | 'crc' | 'sortBoxItemId' | 'picklistId'>>): void;
  /** The id of a new item or session: taken ahead, so usually no read. */
  itemId(): Promise<number>;
  sessionId(): Promise<number>;
}

export type UseCase<N extends CommandName> = (ctx: CommandContext) => Promise<CommandResults[N]>;

/** One command for a wall's actor: the job, and the use-case that decides it. */
export interface CommandRun<N extends CommandName> {
  name: N;
  payload: CommandPayloads[N];
  job: CommandJobInfo;
  useCase: UseCase<N>;
  /** The refusal to answer when the wall kept changing under every attempt (else the last conflict is thrown). */
  contended?: () => AppError;
}

export interface ActorDeps {
  /**
   * Where the statements run: one statement per round trip, each its own transaction; a runner that
   * opens transactions (the sorting worker's pool) also writes several commands of a wall in one.
   */
  db: SqlRunner | SqlDatabase;
  log: Logger;
  sessionIdleTimeoutMs: number;
}

/** A use-case found the wall's memory behind the database (a pending item it does not hold): reload and decide again. */
export class StaleWallState extends Error {}

/** A command decided after others not yet written asked the database: it is decided again once they are. */
class NeedsRead extends Error {}
const noReads: SqlRunner = { run: () => Promise.reject(new NeedsRead()) };
/** Only a runner that opens transactions writes groups (a runner of single statements decides each command alone). */
const canGroup = (db: SqlRunner | SqlDatabase): db is SqlDatabase => typeof (db as Partial<SqlDatabase>).transaction === 'function';

/** A command waiting in its wall's actor. `alone`: decided and written by itself (after a group that failed). */
interface Waiting {
  command: CommandRun<CommandName>;
  resolve(outcome: CommandOutcome): void;
  reject(err: unknown): void;
  alone?: boolean;
}

/** A command decided with changes, as its write needs them (alone, or merged with its group's). */
interface DecidedWrite {
  changes: WallChanges;
  /** The order each changed slot held before the command (whether it vacates or occupies is decided against it). */
  slotOrders: Map<number, number | null>;
  /** Its applied_command record's fields: written field by field for a write of its own, as a JSON row of a group's (WriteParams.records). */
  command: { commandId: string; name: CommandName; partition: number; jobId: number };
  /** Its answer, as JSON. */
  answer: string;
  /** A keyed scan's key, or null. */
  key: { key: string; requestHash: string } | null;
  expectedVersion: number;
  nextVersion: number;
  /** When it was decided (a new slot's creation, the wall's edit). */
  now: Date;
}

/** A command decided in a group: its answer, and its write (a change, or a refusal's record) unless it had an answer already. */
interface GroupDecision {
  waiting: Waiting;
  outcome: CommandOutcome;
  write?: DecidedWrite;
  /** A refusal's `command.refused` event, and the version it was decided against. */
  refusal?: { event: NewOutboxEvent; version: number };
  idempotency?: { key: string; answer: { operation: CommandName; requestHash: string; body: unknown } };
}

// Conflicts that undo the whole statement, after which deciding again is safe: the fence or a line
// guard (40001), a deadlock (40P01), a unique index another writer got to first (23505: two walls
// taking one order, two attachments of one device, two walls renamed alike).
const RETRYABLE_PG_CODES = new Set(['40001', '40P01', '23505']);
const MAX_ATTEMPTS = 6;
/** Commands of a wall decided one after the other in memory and written together, at most (the jobs a partition's worker holds at once). */
const MAX_GROUP = PARTITION_JOBS_IN_HAND;
/** A wall without a command for this long is forgotten (checked at most once a minute). */
const IDLE_FORGET_MS = 15 * 60_000;
const IDLE_SWEEP_MS = 60_000;
/** Ids taken ahead per wall, and when to take more (with the next write). */
const ID_STOCK = { items: 16, sessions: 2, refillBelow: 4 };

const pgError = (err: unknown) => err as { code?: string; constraint?: string; detail?: string };
const isRetryable = (err: unknown) => RETRYABLE_PG_CODES.has(pgError(err).code ?? '');
const violates = (err: unknown, constraint: string) => pgError(err).code === '23505' && pgError(err).constraint === constraint;

const num = (v: unknown): number | null => (typeof v === 'number' ? v : null);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** A refusal's fenced record (record-refusal-fenced), for a refusal written by itself. */
function refusalRecord(event: NewOutboxEvent, version: number): Parameters<typeof recordRefusalFenced>[1] {
  return { eventId: event.eventId, clientId: event.clientId, wallId: event.wallId!, expectedVersion: version, data: JSON.stringify(event.data) };
}

/**
 * The write of one command or of a group's commands merged, in queue order: each row as the last
 * command leaves it (a row inserted and changed later in the group is inserted as it ends), each order
 * line guarded by the figures the first decision saw, the events and refusals' events in order, one
 * applied_command record per command, and the fence from the first command's version to the last's.
 * A slot vacates or occupies by the order it held before the group and holds after it (vacated ones are
 * written first, so an order handed from one slot to another does not meet itself in the unique index;
 * a merge that still collides fails the group, whose commands are then decided again alone). `refill`:
 * the id stock to take more of with this write when it runs low, or null.
 */
function writeOf(state: WallState, entries: { write?: DecidedWrite; refusal?: { event: NewOutboxEvent } }[], refill: typeof ID_STOCK | null): WriteParams {
  const lines = new Map<number, { before: LineFigures; after: LineRow }>();
  const slots = new Map<number, SlotRow>();
  const slotOrders = new Map<number, number | null>();
  const newSlots: SlotRow[] = [];
  const removedSlots: number[] = [];
  const sessions = new Map<number, SessionRow>();
  const newSessions = new Map<number, SessionRow>();
  const items = new Map<number, ItemRow>();
  const newItems = new Map<number, ItemRow>();
  const events: NewOutboxEvent[] = [];
  const records: DecidedWrite[] = [];
  let wall: WallRow | null = null;
  let keyed = false;
  let first: DecidedWrite | undefined;
  let last: DecidedWrite | undefined;
  for (const { write, refusal } of entries) {
    if (!write) {
      if (refusal) events.push(refusal.event);
      continue;
    }
    first ??= write;
    last = write;
    const c = write.changes;
    if (c.wall) wall = c.wall;
    for (const [id, l] of c.lines) lines.set(id, { before: lines.get(id)?.before ?? l.before, after: l.after });
    for (const [id, slot] of c.slots) {
      if (!slotOrders.has(id)) slotOrders.set(id, write.slotOrders.get(id) ?? null);
      slots.set(id, slot);
    }
    newSlots.push(...c.newSlots);
    removedSlots.push(...c.removedSlots);
    for (const row of c.newSessions) newSessions.set(row.id, row);
    for (const row of c.sessions.values()) (newSessions.has(row.id) ? newSessions : sessions).set(row.id, row);
    for (const row of c.newItems) newItems.set(row.id, row);
    for (const row of c.items.values()) (newItems.has(row.id) ? newItems : items).set(row.id, row);
    events.push(...c.events);
    records.push(write);
    keyed ||= write.key !== null;
  }
  if (!first || !last) throw new Error('a write without a decided command');
  const vacated: SlotRow[] = [];
  const occupied: SlotRow[] = [];
  for (const slot of slots.values()) (slot.orderId !== null && slot.orderId !== slotOrders.get(slot.id) ? occupied : vacated).push(slot);
  const lineRows = [...lines.values()]
    .sort((a, b) => a.after.id - b.after.id)
    .map(({ before, after }) => ({ id: after.id, ...before, newConfirmedQty: after.confirmedQty, newPendingQty: after.pendingQty }));
  // Ids for the commands to come, taken with this write when the stock runs low.
  const more = (stock: number[], size: number) => (refill && stock.length < refill.refillBelow ? size : 0);
  return {
    clientId: state.wall.clientId,
    wallId: state.wall.id,
    expectedVersion: first.expectedVersion,
    nextVersion: last.nextVersion,
    wall: wall
      ? JSON.stringify({
          name: wall.name, isActive: wall.isActive, maxSorters: wall.maxSorters, warehouseId: wall.warehouseId, workflow: wall.workflow,
          flowDirection: wall.flowDirection, segmentRows: wall.segmentRows, segmentColumns: wall.segmentColumns,
        })
      : null,
    lines: JSON.stringify(lineRows),
    lineCount: lineRows.length,
    slotsVacated: JSON.stringify(vacated),
    slotsOccupied: JSON.stringify(occupied),
    slotsInserted: JSON.stringify(newSlots),
    slotsDeleted: removedSlots,
    sessionsUpdated: JSON.stringify([...sessions.values()]),
    sessionsInserted: JSON.stringify([...newSessions.values()]),
    itemsUpdated: JSON.stringify([...items.values()]),
    itemsInserted: JSON.stringify([...newItems.values()]),
    events: JSON.stringify(events),
    // One record: its fields, as the statement of a command alone takes them; several: their JSON rows.
    ...(records.length === 1
      ? { commandId: first.command.commandId, command: first.command.name, partition: first.command.partition, jobId: first.command.jobId, result: first.answer, idempotency: first.key && JSON.stringify(first.key), records: '[]' }
      : { commandId: null, command: null, partition: null, jobId: null, result: null, idempotency: null, records: `[${records.map((w) => appliedRecord({ ...w.command, appliedAt: w.now, ...w.key }, w.answer)).join(',')}]` }),
    keyed,
    now: last.now,
    itemIdRefill: refill ? more(state.itemIds, refill.items) : 0,
    sessionIdRefill: refill ? more(state.sessionIds, refill.sessions) : 0,
  };
}

export class WallActor {
  private state: WallState | null = null;
  /** Counts forget(): a load begun before one does not keep its state. */
  private generation = 0;
  private readonly waiting: Waiting[] = [];
  private draining: Promise<void> | null = null;
  private running = 0;
  lastUsed = Date.now();

  constructor(
    readonly clientId: number,
    readonly wallId: number,
    private readonly deps: ActorDeps,
  ) {}

  /**
   * Runs the command after the ones before it (one at a time per wall, whoever calls). The commands
   * waiting when the wall's turn comes are decided one after the other in memory and written together
   * (group commit), each answered once the write committed.
   */
  run<N extends CommandName>(command: CommandRun<N>): Promise<CommandOutcome<N>> {
    this.running++;
    const answer = new Promise<CommandOutcome>((resolve, reject) => this.waiting.push({ command: command as unknown as CommandRun<CommandName>, resolve, reject }));
    // The wall's turn begins on the next turn of the event loop: the jobs a worker handed over together are all waiting by then.
    this.draining ??= new Promise((r) => setImmediate(r)).then(() => this.drain());
    return answer.finally(() => this.running--) as Promise<CommandOutcome<N>>;
  }

  private async drain(): Promise<void> {
    try {
      while (this.waiting.length > 0) {
        this.redeliveredInQueueOrder();
        const group = this.takeGroup();
        try {
          if (group.length === 1) {
            const [w] = group;
            await this.decideAndWrite(w!.command).then(w!.resolve, (err: unknown) => {
              w!.reject(err);
              this.outage(err);
            });
          } else {
            await this.decideGroup(group);
          }
        } catch (err) {
          // Not expected (decideGroup answers every command it took): no command is left without an answer.
          this.state = null;
          for (const w of group) w.reject(err);
        }
      }
    } finally {
      this.draining = null;
    }
  }

  /**
   * PostgreSQL (or Redis) failed under a command: the commands waiting behind it would each wait for
   * the same timeout in turn, so they answer at once as it did (503, nothing of theirs was tried).
   */
  private outage(err: unknown): void {
    if (isDependencyOutage(err)) for (const w of this.waiting.splice(0)) w.reject(err);
  }

  /**
   * Jobs handed out again after a stall come back at the head of the queue, but in reverse order
   * (BullMQ takes them from a set and pushes each to the end the worker takes from): the ones waiting
   * at the head are put back in the order their job ids give, the queue's.
   */
  private redeliveredInQueueOrder(): void {
    let n = 0;
    while (n < this.waiting.length && this.waiting[n]!.command.job.redelivered) n++;
    if (n > 1) this.waiting.splice(0, n, ...this.waiting.slice(0, n).sort((a, b) => a.command.job.jobId - b.command.job.jobId));
  }

  /** The next commands to decide together: those waiting, in order, while the wall's state is in memory and none is to go alone or was handed out again. */
  private takeGroup(): Waiting[] {
    const together = (w: Waiting) => !w.alone && !w.command.job.redelivered;
    let n = 1;
    if (this.state && canGroup(this.deps.db) && together(this.waiting[0]!)) {
      while (n < this.waiting.length && n < MAX_GROUP && together(this.waiting[n]!)) n++;
    }
    return this.waiting.splice(0, n);
  }

  /**
   * Decides the commands one after the other against the wall's memory, each seeing the ones before
   * it, and writes them together (writeGroup: one statement, their changes merged). The first may
   * read the database; one after it that needs to is decided again alone once the group is written
   * (its read would not see the group). When the write fails, nothing of it stays: the wall is
   * reloaded and each command decided again alone.
   */
  private async decideGroup(group: Waiting[]): Promise<void> {
    const state = this.state!;
    const decided: GroupDecision[] = [];
    for (let i = 0; i < group.length; i++) {
      const waiting = group[i]!;
      try {
        decided.push(await this.decideInGroup(state, waiting, i === 0 ? this.deps.db : noReads));
      } catch (err) {
        // Decided again after the group (alone): it needs the database, or it failed where the single path knows what to do.
        group[i]!.alone = true;
        this.waiting.unshift(...group.slice(i));
        break;
      }
    }
    if (decided.length === 0) return;
    try {
      const rows = await this.writeGroup(state, decided);
      for (const row of rows) {
        state.itemIds.push(...(row.item_ids ?? []).map(Number));
        state.sessionIds.push(...(row.session_ids ?? []).map(Number));
      }
    } catch (err) {
      this.state = null;
      if (isDependencyOutage(err)) {
        // Whether it committed is unknown: each command answers as a lone one would (a 503, retried with its key).
        for (const d of decided) d.waiting.reject(err);
        this.outage(err);
        return;
      }
      // A statement failed, so nothing of the transaction stays (a conflict: the fence, a line guard, a
      // unique index; or one command's own error): each is decided again alone, from the database, so
      // that one command's failure is its answer alone.
      this.deps.log.debug({ err: (err as Error).message, detail: pgError(err).detail, wallId: this.wallId, commands: decided.length }, 'a group of commands was not written; deciding each again alone');
      for (const d of decided) d.waiting.alone = true;
      this.waiting.unshift(...decided.map((d) => d.waiting));
      return;
    }
    for (const d of decided) {
      if (d.idempotency) state.rememberKey(d.idempotency.key, d.idempotency.answer);
      state.rememberOutcome(d.waiting.command.job.commandId, d.outcome);
      d.waiting.resolve(d.outcome);
    }
  }

  /**
   * The group's write. Its changes merged into ONE statement, as a command alone writes (the rows as
   * the last command leaves them, the events and refusals' events in order, a record per command, the
   * fence from the first command's version to the last's), in autocommit. A group that adds or removes
   * slots (a wall's edit) with other changes, or that has only refusals, is written one statement per
   * command in one transaction instead, each fenced at the version the one before it leaves.
   */
  private async writeGroup(state: WallState, decided: GroupDecision[]): Promise<{ item_ids: number[] | null; session_ids: number[] | null }[]> {
    const writes = decided.flatMap((d) => (d.write ? [d.write] : []));
    const mergeable = writes.length === 1 || (writes.length > 1 && writes.every((w) => w.changes.newSlots.length === 0 && w.changes.removedSlots.length === 0));
    if (mergeable) return applyWrite(this.deps.db, writeOf(state, decided, ID_STOCK));
    // Every order line of the group first, in id order, when a statement after the first has any: the
    // first statement's fence holds the wall's row from then on (lock order: lines first, the wall last).
    const lineIds = [...new Set(writes.flatMap((w) => [...w.changes.lines.keys()]))].sort((a, b) => a - b);
    const laterLines = decided.slice(1).some((d) => (d.write?.changes.lines.size ?? 0) > 0);
    const last = writes[writes.length - 1];
    return (this.deps.db as SqlDatabase).transaction(async (tx) => {
      if (laterLines) await lockGroupLines(tx, { lineIds });
      const written = [];
      for (const d of decided) {
        if (d.write) written.push((await applyWrite(tx, writeOf(state, [d], d.write === last ? ID_STOCK : null)))[0]!);
        else if (d.refusal) await recordRefusalFenced(tx, refusalRecord(d.refusal.event, d.refusal.version));
      }
      return written;
    });
  }

  /** One command of a group decided against the memory, which it then changes (undone by a reload if the group is not written). */
  private async decideInGroup(state: WallState, waiting: Waiting, reads: SqlRunner): Promise<GroupDecision> {
    const { name, payload, job, useCase } = waiting.command;
    const seen = state.outcome(job.commandId);
    if (seen) return { waiting, outcome: seen };
    const facts: Partial<CommandRefusedData> = {};
    const now = new Date();
    const changes = new WallChanges(state, now);
    const ctx: CommandContext = {
      state,
      changes,
      reads: new WallReads(reads, state),
      now,
      idleTimeoutMs: this.deps.sessionIdleTimeoutMs,
      note: (f) => Object.assign(facts, f),
      itemId: () => this.takeId(state, 'items'),
      sessionId: () => this.takeId(state, 'sessions'),
    };
    let value: unknown;
    try {
      value = await useCase(ctx);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      return {
        waiting,
        outcome: { ok: false, problem: { ...err.extensions, code: err.code, detail: err.message, ...(err.errors ? { errors: err.errors } : {}) } },
        refusal: { event: this.refusalEvent(name, job, payload, facts, err, now), version: state.wall.version },
      };
    }
    const write = this.decidedWrite(state, changes, name, job, value, now);
    // Seen by the next commands of the group; the idempotency key too (a retry of the same scan in the group replays it).
    applyChanges(state, changes, write.nextVersion);
    const idempotency = changes.idempotency ? { key: changes.idempotency.key, answer: { operation: name, requestHash: changes.idempotency.requestHash, body: value } } : undefined;
    if (idempotency) state.rememberKey(idempotency.key, idempotency.answer);
    return { waiting, outcome: { ok: true, value } as CommandOutcome, write, idempotency };
  }

  /** No command under way or waiting. */
  idle(): boolean {
    return this.running === 0;
  }

  /** Commands under way or waiting. */
  commands(): number {
    return this.running;
  }

  /** Resolves once no command is under way or waiting. */
  async settled(): Promise<void> {
    while (!this.idle()) await (this.draining ?? Promise.resolve());
  }

  /** Its state holds a connected session. */
  holdsSessions(): boolean {
    return (this.state?.sessions.size ?? 0) > 0;
  }

  /** Forgets the state: the next command loads it afresh (a command under way finishes on what it loaded). */
  forget(): void {
    this.generation++;
    this.state = null;
  }

  private async load(): Promise<WallState> {
    const generation = this.generation;
    const [{ state: j }] = await loadWall(this.deps.db, { clientId: this.clientId, wallId: this.wallId, itemIds: ID_STOCK.items, sessionIds: ID_STOCK.sessions });
    if (!j.wall) throw notFound(`Wall ${this.wallId}`);
    const state = stateFromJson({ ...j, wall: j.wall });
    if (generation === this.generation) this.state = state;
    return state;
  }

  private async takeId(state: WallState, kind: 'items' | 'sessions'): Promise<number> {
    const stock = kind === 'items' ? state.itemIds : state.sessionIds;
    if (stock.length === 0) {
      const [row] = await reserveIds(this.deps.db, { items: kind === 'items' ? ID_STOCK.items : 0, sessions: kind === 'sessions' ? ID_STOCK.sessions : 0 });
      stock.push(...((kind === 'items' ? row.item_ids : row.session_ids) ?? []).map(Number));
    }
    return stock.shift()!;
  }

  /** The answer a command got before (a job handed out again), or null. */
  private async earlier(commandId: string): Promise<CommandOutcome | null> {
    const [row] = await earlierAnswer(this.deps.db, { commandId, refusedEventId: commandRefusedEventId(commandId) });
    if (row?.applied) return { ok: true, value: row.result } as CommandOutcome;
    if (row?.refusal) return { ok: false, problem: { code: row.refusal.code as never, detail: row.refusal.detail } };
    return null;
  }

  private async decideAndWrite<N extends CommandName>({ name, payload, job, useCase, contended }: CommandRun<N>): Promise<CommandOutcome<N>> {
    const seen = this.state?.outcome(job.commandId);
    if (seen) return seen as CommandOutcome<N>;
    // A job started before looks its earlier answer up at once; without a state the load below does.
    if (job.redelivered && this.state) {
      const earlier = await this.earlier(job.commandId);
      if (earlier) return earlier as CommandOutcome<N>;
    }
    const facts: Partial<CommandRefusedData> = {};
    for (let attempt = 1; ; attempt++) {
      let changes: WallChanges | null = null;
      let state: WallState | null = null;
      try {
        const fresh = !this.state;
        state = this.state ?? (await this.load());
        if (fresh) {
          // A state read from the database may already hold this very command, applied by another
          // delivery of its job (a holder that lost the partition while the job waited here, the
          // stalled check's copy on the next holder): its answer stands, never a second decision. Looked
          // up after the load: a write of it after the load moves the version, and the fence catches it.
          const earlier = await this.earlier(job.commandId);
          if (earlier) return earlier as CommandOutcome<N>;
        }
        const now = new Date();
        const current = state;
        changes = new WallChanges(current, now);
        const ctx: CommandContext = {
          state: current,
          changes,
          reads: new WallReads(this.deps.db, current),
          now,
          idleTimeoutMs: this.deps.sessionIdleTimeoutMs,
          note: (f) => Object.assign(facts, f),
          itemId: () => this.takeId(current, 'items'),
          sessionId: () => this.takeId(current, 'sessions'),
        };
        let outcome: CommandOutcome<N>;
        let value: CommandResults[N] | undefined;
        try {
          value = await useCase(ctx);
        } catch (err) {
          if (!(err instanceof AppError)) throw err;
          await this.recordRefusal(name, job, payload, facts, err, current.wall.version, current.wall.id);
          outcome = { ok: false, problem: { ...err.extensions, code: err.code, detail: err.message, ...(err.errors ? { errors: err.errors } : {}) } };
        }
        if (value !== undefined) {
          const write = this.decidedWrite(current, changes, name, job, value, now);
          const [row] = await applyWrite(this.deps.db, writeOf(current, [{ write }], ID_STOCK));
          applyChanges(current, changes, write.nextVersion);
          current.itemIds.push(...(row.item_ids ?? []).map(Number));
          current.sessionIds.push(...(row.session_ids ?? []).map(Number));
          if (changes.idempotency) current.rememberKey(changes.idempotency.key, { operation: name, requestHash: changes.idempotency.requestHash, body: value });
          outcome = { ok: true, value };
        }
        current.rememberOutcome(job.commandId, outcome!);
        return outcome!;
      } catch (err) {
        if (err instanceof AppError) {
          // The wall itself is missing (the load found no row): nothing to fence.
          await this.recordRefusal(name, job, payload, facts, err, null, null);
          return { ok: false, problem: { code: err.code, detail: err.message } };
        }
        if (violates(err, 'applied_command_pkey')) {
          // Another delivery of this very command got there first (a stalled job run twice at once).
          const earlier = await this.earlier(job.commandId);
          if (earlier) return earlier as CommandOutcome<N>;
        }
        if (violates(err, 'applied_command_idempotency_uq') && changes?.idempotency && state && attempt < MAX_ATTEMPTS) {
          // The key was used before this wall's memory began: its first answer decides (the use-case replays it).
          const prior = await new WallReads(this.deps.db, state).idempotency(changes.idempotency.key);
          if (prior) {
            state.rememberKey(changes.idempotency.key, prior);
            continue;
          }
        }
        const stale = err instanceof StaleWallState;
        if ((stale || isRetryable(err)) && attempt < MAX_ATTEMPTS) {
          this.deps.log.debug({ err: (err as Error).message, detail: pgError(err).detail, command: name, wallId: this.wallId, attempt }, 'the wall changed under a command; deciding it again');
          this.state = null;
          continue;
        }
        // Whether a write that failed this way was applied is unknown: the next command starts from the database.
        this.state = null;
        if (isRetryable(err) && contended) {
          const refusal = contended();
          await this.recordRefusal(name, job, payload, facts, refusal, null, payload.wallId);
          return { ok: false, problem: { code: refusal.code, detail: refusal.message } };
        }
        throw err;
      }
    }
  }

  /** A command's decision as its write needs it, taken before the memory applies it (the slots' orders before it, the version it was decided on). */
  private decidedWrite(state: WallState, c: WallChanges, name: CommandName, job: CommandJobInfo, result: unknown, now: Date): DecidedWrite {
    const slotOrders = new Map<number, number | null>();
    for (const id of c.slots.keys()) slotOrders.set(id, state.slots.get(id)?.orderId ?? null);
    return {
      changes: c,
      slotOrders,
      command: { commandId: job.commandId, name, partition: job.partition, jobId: job.jobId },
      answer: JSON.stringify(result ?? null),
      key: c.idempotency ? { key: c.idempotency.key, requestHash: c.idempotency.requestHash } : null,
      expectedVersion: state.wall.version,
      nextVersion: state.wall.version + 1,
      now,
    };
  }

  /**
   * A refusal is recorded as an internal `command.refused` outbox event (audit, statistics) with an id
   * derived from the command's id, so a command delivered twice records its refusal once. Fenced like
   * a write (`version`): a refusal decided on a state that moved on since raises and is decided again.
   */
  private async recordRefusal(
    name: CommandName,
    job: CommandJobInfo,
    payload: CommandPayloads[CommandName],
    facts: Partial<CommandRefusedData>,
    err: AppError,
    /** The version the refusal was decided against; null: nothing to fence (no wall, or no state left). */
    version: number | null,
    wallId: number | null,
  ): Promise<void> {
    if (version === null) {
      try {
        await recordRefusal(this.deps.db, { eventId: commandRefusedEventId(job.commandId), clientId: payload.clientId, wallId, data: JSON.stringify(this.refusalData(name, payload, facts, err)) });
      } catch (e) {
        // The answer matters more than its audit record: the refusal still goes back to the caller.
        this.deps.log.error({ err: e, command: name, commandId: job.commandId }, 'could not record a refused command');
      }
      return;
    }
    await recordRefusalFenced(this.deps.db, refusalRecord(this.refusalEvent(name, job, payload, facts, err, new Date()), version));
  }

  /** A refusal's `command.refused` event (its id derived from the command's, so a command delivered twice records it once). */
  private refusalEvent(name: CommandName, job: CommandJobInfo, payload: CommandPayloads[CommandName], facts: Partial<CommandRefusedData>, err: AppError, now: Date): NewOutboxEvent {
    return {
      eventId: commandRefusedEventId(job.commandId),
      clientId: payload.clientId,
      wallId: payload.wallId,
      type: COMMAND_REFUSED,
      occurredAt: now,
      data: this.refusalData(name, payload, facts, err) as unknown as Record<string, unknown>,
    };
  }

  private refusalData(name: CommandName, payload: CommandPayloads[CommandName], facts: Partial<CommandRefusedData>, err: AppError): CommandRefusedData {
    const p: Record<string, unknown> = payload;
    return {
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
  }
}

/**
 * The actors of one process, one per wall of the partitions it holds; a partition handed back or lost
 * forgets its walls (another process may change them from then on). An actor is removed only while no
 * command of its wall is under way or waiting: a wall has one actor in the process, so its commands
 * never overlap, whatever the partition's workers do meanwhile (docs/architecture.md "The wall actor").
 */
export class WallActors {
  private readonly actors = new Map<string, WallActor>();
  private sweptAt = Date.now();

  constructor(
    private readonly deps: ActorDeps,
    private readonly partitions: number,
  ) {}

  run<N extends CommandName>(command: CommandRun<N>): Promise<CommandOutcome<N>> {
    const { payload } = command;
    const key = `${payload.clientId}:${payload.wallId}`;
    const now = Date.now();
    if (now - this.sweptAt > IDLE_SWEEP_MS) this.forgetIdle(now);
    let actor = this.actors.get(key);
    if (!actor) {
      actor = new WallActor(payload.clientId, payload.wallId, this.deps);
      this.actors.set(key, actor);
    }
    actor.lastUsed = now;
    return actor.run(command);
  }

  /**
   * Walls without a command for a while are forgotten (memory stays bounded by the walls at work),
   * but not a wall with a sorter connected: its sorters on a break come back to a wall in memory, not
   * to a load (its sessions end by themselves after the idle timeout, and the wall is forgotten then).
   */
  forgetIdle(now: number): void {
    this.sweptAt = now;
    for (const [key, actor] of this.actors) {
      if (now - actor.lastUsed > IDLE_FORGET_MS && !actor.holdsSessions()) this.removeIdle(key, actor);
    }
  }

  /** Forgets every wall of the partition; an actor with a command under way or waiting is removed once it is done. */
  dropPartition(partition: number): void {
    for (const [key, actor] of this.actors) {
      if (partitionOf(actor.wallId, this.partitions) !== partition) continue;
      actor.forget();
      if (actor.idle()) this.actors.delete(key);
      else void actor.settled().then(() => this.removeIdle(key, actor));
    }
  }

  private removeIdle(key: string, actor: WallActor): void {
    if (this.actors.get(key) === actor && actor.idle()) this.actors.delete(key);
  }

  /** The actors held now, and the commands under way or waiting in them (tests). */
  held(): { actors: number; commands: number } {
    let commands = 0;
    for (const actor of this.actors.values()) commands += actor.commands();
    return { actors: this.actors.size, commands };
  }
}
