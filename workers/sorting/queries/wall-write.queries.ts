import { query, queryVariants, type SqlRunner } from '../../../shared/db/named-sql';
import { COMMAND_REFUSED } from '../../../shared/events/command-refused';

/* A command's one write and the lookups around it (workers/sorting/actor/wall-actor.ts). */

/** The rows and bookkeeping of one write: a command's, or the merged changes of a group of commands (wall-actor.ts). */
export interface WriteParams {
  clientId: number;
  wallId: number;
  /** The version the decision (the group's first) was made against, and the one the write (the group's last) leaves. */
  expectedVersion: number;
  nextVersion: number;
  /** The wall row's editable fields (JSON), or null when the command does not edit the wall. */
  wall: string | null;
  /** JSON arrays of whole rows, as the command (the group) leaves them (see WallChanges). */
  lines: string;
  lineCount: number;
  slotsVacated: string;
  slotsOccupied: string;
  slotsInserted: string;
  slotsDeleted: number[];
  sessionsUpdated: string;
  sessionsInserted: string;
  itemsUpdated: string;
  itemsInserted: string;
  events: string;
  /**
   * A command alone's applied_command record: its fields, its answer (JSON) and a keyed scan's
   * ({ key, requestHash }) or null; null for a group's write (see `records`).
   */
  commandId: string | null;
  command: string | null;
  partition: number | null;
  jobId: number | null;
  result: string | null;
  idempotency: string | null;
  /**
   * A group's applied_command records, one per command, as a JSON array of
   * `{ commandId, name, partition, jobId, appliedAt, result, key?, requestHash? }`; `[]` for a command alone.
   */
  records: string;
  /** Some record has a key. */
  keyed: boolean;
  now: Date;
  /** Ids to take ahead from the sequences, for the commands to come. */
  itemIdRefill: number;
  sessionIdRefill: number;
}

/** A single command's write, its record given field by field. */
export interface ApplyParams extends Omit<WriteParams, 'records' | 'keyed' | 'commandId' | 'command' | 'partition' | 'jobId' | 'result'> {
  commandId: string;
  command: string;
  partition: number;
  jobId: number;
  /** The command's answer (JSON). */
  result: string;
}

/** One applied_command record of `WriteParams.records`, the answer (JSON already) set in as it is. */
export function appliedRecord(r: { commandId: string; name: string; partition: number; jobId: number; appliedAt: Date; key?: string; requestHash?: string }, result: string): string {
  return `${JSON.stringify(r).slice(0, -1)},"result":${result}}`;
}

/**
 * `= ids(param)`: the ids of a JSON array of rows, as the condition a row update is found by. An update
 * joined to jsonb_to_recordset alone may be planned as a scan of the whole table (the function is
 * guessed at 100 rows, and a table without statistics looks small); by its key, it is an index lookup
 * per row whatever the planner knows.
 */
const ids = (param: string) => `any(array(select (e->>'id')::int from jsonb_array_elements(:${param}::jsonb) e))`;

const SLOT = `s(id int, status text, "orderId" int, "assignedAt" timestamptz)`;
const SESSION = `s(id int, token text, "userId" int, "picklistId" int, color text, status text, "startedAt" timestamptz,
  "lastActivityAt" timestamptz, "expiresAt" timestamptz, "endedAt" timestamptz, "endReason" text)`;
const ITEM = `x(id int, "sortBoxId" int, crc text, "orderId" int, "orderItemId" int, "productId" int, sku text, barcode text,
  "barcodeInputMethod" text, "userId" int, "sessionId" int, color text, units int, "confirmedUnits" int, status text,
  "createdAt" timestamptz, "confirmedAt" timestamptz, "cancelledAt" timestamptz, "requiresSerial" boolean, serial text)`;

/** Which parts a command's write has: the shape of its statement (a part with no rows has no CTE). */
export interface WriteShape {
  lines: boolean;
  slotsVacated: boolean;
  slotsOccupied: boolean;
  slotsInserted: boolean;
  slotsDeleted: boolean;
  sessionsUpdated: boolean;
  sessionsInserted: boolean;
  itemsUpdated: boolean;
  itemsInserted: boolean;
  events: boolean;
  idempotency: boolean;
  wall: boolean;
  /** Several applied_command records (a group's write). */
  records: boolean;
}

const PARTS: readonly [keyof WriteShape, string][] = [
  ['lines', 'l'], ['slotsVacated', 'v'], ['slotsOccupied', 'o'], ['slotsInserted', 'a'], ['slotsDeleted', 'd'], ['sessionsUpdated', 's'],
  ['sessionsInserted', 'n'], ['itemsUpdated', 'u'], ['itemsInserted', 'i'], ['events', 'e'], ['idempotency', 'k'], ['wall', 'w'], ['records', 'r'],
];

/** The write's shape from its parameters: a JSON array of no rows, no slot to delete, no key or no wall edit is a part left out. */
export function writeShape(p: WriteParams): WriteShape {
  const rows = (json: string) => json !== '[]';
  return {
    lines: rows(p.lines), slotsVacated: rows(p.slotsVacated), slotsOccupied: rows(p.slotsOccupied), slotsInserted: rows(p.slotsInserted),
    slotsDeleted: p.slotsDeleted.length > 0, sessionsUpdated: rows(p.sessionsUpdated), sessionsInserted: rows(p.sessionsInserted),
    itemsUpdated: rows(p.itemsUpdated), itemsInserted: rows(p.itemsInserted), events: rows(p.events), idempotency: p.keyed, wall: p.wall !== null, records: rows(p.records),
  };
}

/** `apply-wall-changes:<letters of its parts>`, e.g. a confirm's `lue`. */
const shapeKey = (s: WriteShape) => PARTS.filter(([part]) => s[part]).map(([, letter]) => letter).join('') || 'none';

/** The CTE of each part, in the order the unique indexes and locks need (see applyWallChanges). */
function writeCtes(s: WriteShape): [string, string][] {
  const ctes: [string, string][] = [];
  if (s.lines) ctes.push(['lines', `
  update order_item oi set confirmed_qty = l."newConfirmedQty", pending_qty = l."newPendingQty"
    from jsonb_to_recordset(:lines::jsonb) as l(id int, qty int, "confirmedQty" int, "pendingQty" int, "newConfirmedQty" int, "newPendingQty" int)
   -- By key alone: a client_id condition here would let a plan without statistics read the client's
   -- whole (client, sku, warehouse) index. The ids come from the wall's own client-scoped reads.
   where oi.id = ${ids('lines')} and oi.id = l.id
     and oi.qty = l.qty and oi.confirmed_qty = l."confirmedQty" and oi.pending_qty = l."pendingQty"
  returning 1`]);
  if (s.slotsVacated) ctes.push(['slots_vacated', `
  update sort_box sb set status = s.status, order_id = s."orderId", assigned_at = s."assignedAt"
    from jsonb_to_recordset(:slotsVacated::jsonb) as ${SLOT}
   where sb.id = ${ids('slotsVacated')} and sb.id = s.id and sb.wall_id = :wallId::int
  returning 1`]);
  if (s.slotsOccupied) ctes.push(['slots_occupied', `
  update sort_box sb set status = s.status, order_id = s."orderId", assigned_at = s."assignedAt"
    from jsonb_to_recordset(:slotsOccupied::jsonb) as ${SLOT}
   where sb.id = ${ids('slotsOccupied')} and sb.id = s.id and sb.wall_id = :wallId::int${s.slotsVacated ? ' and (select count(*) from slots_vacated) >= 0' : ''}
  returning 1`]);
  if (s.slotsInserted) ctes.push(['slots_inserted', `
  insert into sort_box (id, client_id, wall_id, serial_number, crc, position, status, order_id, assigned_at, created_at)
  select s.id, :clientId::int, :wallId::int, s."serialNumber", s.crc, s.position, s.status, null, null, :now::timestamptz
    from jsonb_to_recordset(:slotsInserted::jsonb) as s(id int, "serialNumber" text, crc text, position int, status text)
  returning 1`]);
  if (s.slotsDeleted) ctes.push(['slots_deleted', `
  delete from sort_box where id = any(:slotsDeleted::int[]) and wall_id = :wallId::int returning 1`]);
  if (s.sessionsUpdated) ctes.push(['sessions_updated', `
  update sorter_session ss set status = s.status, end_reason = s."endReason", ended_at = s."endedAt",
                               last_activity_at = s."lastActivityAt", expires_at = s."expiresAt"
    from jsonb_to_recordset(:sessionsUpdated::jsonb) as ${SESSION}
   where ss.id = ${ids('sessionsUpdated')} and ss.id = s.id and ss.wall_id = :wallId::int
  returning 1`]);
  if (s.sessionsInserted) ctes.push(['sessions_inserted', `
  insert into sorter_session (id, token, client_id, wall_id, user_id, picklist_id, color, status, started_at, last_activity_at, expires_at, ended_at, end_reason)
  select s.id, s.token, :clientId::int, :wallId::int, s."userId", s."picklistId", s.color, s.status, s."startedAt", s."lastActivityAt", s."expiresAt",
         s."endedAt", s."endReason"
    from jsonb_to_recordset(:sessionsInserted::jsonb) as ${SESSION}${s.sessionsUpdated ? '\n   where (select count(*) from sessions_updated) >= 0' : ''}
  returning 1`]);
  if (s.itemsUpdated) ctes.push(['items_updated', `
  update sort_box_item i set sort_box_id = x."sortBoxId", crc = x.crc, session_id = x."sessionId", units = x.units,
                             confirmed_units = x."confirmedUnits", status = x.status, confirmed_at = x."confirmedAt", cancelled_at = x."cancelledAt",
                             serial = x.serial
    from jsonb_to_recordset(:itemsUpdated::jsonb) as ${ITEM}
   where i.id = ${ids('itemsUpdated')} and i.id = x.id and i.wall_id = :wallId::int
  returning 1`]);
  if (s.itemsInserted) ctes.push(['items_inserted', `
  insert into sort_box_item (id, client_id, wall_id, sort_box_id, crc, order_id, order_item_id, product_id, sku, barcode,
                             barcode_input_method, user_id, session_id, color, units, confirmed_units, status, created_at, requires_serial,
                             confirmed_at, cancelled_at, serial)
  select x.id, :clientId::int, :wallId::int, x."sortBoxId", x.crc, x."orderId", x."orderItemId", x."productId", x.sku, x.barcode,
         x."barcodeInputMethod", x."userId", x."sessionId", x.color, x.units, x."confirmedUnits", x.status, x."createdAt", x."requiresSerial",
         x."confirmedAt", x."cancelledAt", x.serial
    from jsonb_to_recordset(:itemsInserted::jsonb) as ${ITEM}
  returning 1`]);
  if (s.events) ctes.push(['events', `
  insert into outbox_event (event_id, client_id, wall_id, type, occurred_at, data)
  select e."eventId", e."clientId", e."wallId", e.type, e."occurredAt", e.data
    from jsonb_to_recordset(:events::jsonb) as e("eventId" uuid, "clientId" int, "wallId" int, type text, "occurredAt" timestamptz, data jsonb)
  returning 1`]);
  if (s.records) ctes.push(['record', `
  insert into applied_command (command_id, client_id, wall_id, name, partition, job_id, result, applied_at${s.idempotency ? ', idempotency_key, request_hash' : ''})
  select r."commandId", :clientId::int, :wallId::int, r.name, r.partition, r."jobId", coalesce(r.result, 'null'::jsonb), r."appliedAt"${s.idempotency ? ', r.key, r."requestHash"' : ''}
    from jsonb_to_recordset(:records::jsonb) as r("commandId" uuid, name text, partition int, "jobId" bigint, "appliedAt" timestamptz, result jsonb${s.idempotency ? ', key text, "requestHash" text' : ''})
  returning 1`]);
  else ctes.push(['record', `
  insert into applied_command (command_id, client_id, wall_id, name, partition, job_id, result, applied_at${s.idempotency ? ', idempotency_key, request_hash' : ''})
  ${s.idempotency
    ? `select :commandId::uuid, :clientId::int, :wallId::int, :command::text, :partition::int, :jobId::bigint, :result::jsonb, :now::timestamptz, k.key, k."requestHash"
    from jsonb_to_record(:idempotency::jsonb) as k(key text, "requestHash" text)`
    : `values (:commandId::uuid, :clientId::int, :wallId::int, :command::text, :partition::int, :jobId::bigint, :result::jsonb, :now::timestamptz)`}
  returning 1`]);
  return ctes;
}

/** The fence: the wall's version moved (and its edit, when the command edits the wall) after every other part. */
function fenceCte(s: WriteShape, before: string[]): string {
  const after = before.length ? `\n     and ${before.map((c) => `(select count(*) from ${c})`).join(' + ')} >= 0` : '';
  if (!s.wall) {
    return `
  update wall w set version = :nextVersion::bigint
   where w.id = :wallId::int and w.client_id = :clientId::int and w.version = :expectedVersion::bigint${after}
  returning 1`;
  }
  return `
  update wall w set version = :nextVersion::bigint,
         name = coalesce(f.name, w.name), is_active = coalesce(f."isActive", w.is_active), max_sorters = coalesce(f."maxSorters", w.max_sorters),
         warehouse_id = f."warehouseId", workflow = coalesce(f.workflow, w.workflow), flow_direction = coalesce(f."flowDirection", w.flow_direction),
         segment_rows = f."segmentRows", segment_columns = f."segmentColumns", updated_at = :now::timestamptz
    from jsonb_to_record(:wall::jsonb) as f(name text, "isActive" boolean, "maxSorters" int, "warehouseId" int, workflow text,
                                            "flowDirection" text, "segmentRows" int, "segmentColumns" int)
   where w.id = :wallId::int and w.client_id = :clientId::int and w.version = :expectedVersion::bigint${after}
  returning 1`;
}

/**
 * The whole command (or a group's commands, merged: wall-actor.ts) in one statement, in autocommit: one
 * round trip, one applied_command record per command. Only the parts the command has
 * are in it (one named statement per shape, `apply-wall-changes:<parts>`: a confirm's holds its line,
 * session, item, events, record and fence, nothing else). Order where the unique indexes need it:
 * slots give up their orders before others take them (a swap), a replaced session ends before its
 * successor connects (a CTE that reads another runs after it). Lock order as every other writer of
 * these rows: the order lines first, the wall row last (the fence), so a concurrent upload, which also
 * locks lines before it moves the wall's version, waits or is waited for, never deadlocks. The final
 * check raises 40001 when the fence matched nothing or a line no longer held the figures the decision
 * saw: then nothing of the statement stays.
 */
function applySql(s: WriteShape): string {
  const ctes = writeCtes(s);
  const all = [...ctes, ['fence', fenceCte(s, ctes.map(([name]) => name))] as [string, string]];
  return `
/* apply-wall-changes: a command's one write (its name shows in pg_stat_activity, whose query text is cut short) */
with ${all.map(([name, sql]) => `${name} as (${sql}\n)`).join(', ')}
select sorting_write_check((select count(*) from fence), ${s.lines ? '(select count(*) from lines)' : '0'}, :lineCount::bigint) as ok,
       (select array_agg(nextval('sort_box_item_id_seq')::int) from generate_series(1, :itemIdRefill::int)) as item_ids,
       (select array_agg(nextval('sorter_session_id_seq')::int) from generate_series(1, :sessionIdRefill::int)) as session_ids`;
}

type ApplyRow = { ok: boolean; item_ids: number[] | null; session_ids: number[] | null };

const applyVariants = queryVariants<WriteShape, WriteParams, ApplyRow>('apply-wall-changes', shapeKey, applySql);

/** A write (a command's, or a group's merged changes with a record per command): the statement of its shape. */
export function applyWrite(db: SqlRunner, params: WriteParams): Promise<ApplyRow[]> {
  return applyVariants(db, writeShape(params), params);
}

/** A single command's write, its record given field by field: the same statement, with one record. */
export function applyWallChanges(db: SqlRunner, p: ApplyParams): Promise<ApplyRow[]> {
  return applyWrite(db, { ...p, records: '[]', keyed: p.idempotency !== null });
}

const shape = (parts: (keyof WriteShape)[]): WriteShape =>
  Object.fromEntries(PARTS.map(([part]) => [part, parts.includes(part)])) as unknown as WriteShape;

// The commonest shapes, as the hot-statement snapshot shows them: a keyed scan of an order already in a
// slot, a scan that puts its order into a slot, a confirm (none of them writes the session: its activity
// is written once a minute, session-access.ts), a release, and every part at once.
export const applyScan = { statement: applyVariants.statement(shape(['lines', 'itemsInserted', 'events', 'idempotency'])) };
export const applyScanIntoSlot = { statement: applyVariants.statement(shape(['lines', 'slotsOccupied', 'itemsInserted', 'events', 'idempotency'])) };
export const applyConfirm = { statement: applyVariants.statement(shape(['lines', 'itemsUpdated', 'events'])) };
export const applyRelease = { statement: applyVariants.statement(shape(['slotsVacated', 'events'])) };
// A group's write: a scan's parts with several commands' records (a scan and the confirm of its item, merged).
export const applyGroupScan = { statement: applyVariants.statement(shape(['lines', 'itemsInserted', 'events', 'idempotency', 'records'])) };
export const applyEveryPart = { statement: applyVariants.statement(shape(PARTS.map(([part]) => part))) };

/**
 * A refused command's `command.refused` event (docs/architecture.md "Refused commands"), once per
 * command id, fenced like a write: a refusal decided on a state that moved on since is decided again.
 */
export const recordRefusalFenced = query<{ eventId: string; clientId: number; wallId: number; expectedVersion: number; data: string }, { ok: boolean }>(
  'record-refusal-fenced',
  `
with fence as (
  select 1 from wall where id = :wallId::int and client_id = :clientId::int and version = :expectedVersion::bigint
), refused as (
  insert into outbox_event (event_id, client_id, wall_id, type, occurred_at, data)
  select :eventId::uuid, :clientId::int, :wallId::int, '${COMMAND_REFUSED}', now(), :data::jsonb from fence
  on conflict (event_id) do nothing
  returning 1
)
select sorting_write_check((select count(*) from fence) + 0 * (select count(*) from refused), 0, 0) as ok`,
);

// The refusal of a command whose wall does not exist (or is another client's): no wall, no fence.
export const recordRefusal = query<{ eventId: string; clientId: number; wallId: number | null; data: string }>('record-refusal', `
insert into outbox_event (event_id, client_id, wall_id, type, occurred_at, data)
values (:eventId, :clientId, :wallId, '${COMMAND_REFUSED}', now(), :data::jsonb) on conflict (event_id) do nothing`);

/**
 * The order lines of a group of commands written one statement per command, locked first in id order,
 * before the group's first statement takes the wall's row: within the group's transaction each statement locks its own lines, then the
 * wall, and the second's lines would come after the wall, against the lock order of every writer
 * (order lines first, the wall last). Locked by key alone, as the write finds them.
 */
export const lockGroupLines = query<{ lineIds: number[] }, { id: number }>('lock-group-lines', `
select id from order_item where id = any(:lineIds::int[]) order by id for update`);

/** A command's earlier answer: its applied record, or its refusal (a job handed out again). */
export const earlierAnswer = query<
  { commandId: string; refusedEventId: string },
  { applied: boolean; result: unknown; refusal: { code: string; detail: string } | null }
>(
  'earlier-answer',
  `
select exists (select 1 from applied_command ac where ac.command_id = :commandId::uuid) as applied,
       (select ac.result from applied_command ac where ac.command_id = :commandId::uuid) as result,
       (select json_build_object('code', o.data->>'code', 'detail', o.data->>'detail') from outbox_event o where o.event_id = :refusedEventId::uuid) as refusal`,
);

/** The first answer under a sorter's Idempotency-Key (its keyed applied record), when the wall's memory does not hold it. */
export const idempotencyRecord = query<{ clientId: number; key: string }, { operation: string; request_hash: string; body: unknown }>('idempotency-record', `
select name as operation, request_hash, result as body from applied_command
 where client_id = :clientId::int and idempotency_key = :key::text and idempotency_key is not null`);

/** Ids taken from the sequences when the wall's own stock ran out. */
export const reserveIds = query<{ items: number; sessions: number }, { item_ids: number[] | null; session_ids: number[] | null }>('reserve-ids', `
select (select array_agg(nextval('sort_box_item_id_seq')::int) from generate_series(1, :items::int)) as item_ids,
       (select array_agg(nextval('sorter_session_id_seq')::int) from generate_series(1, :sessions::int)) as session_ids`);
