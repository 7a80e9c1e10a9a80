import { count } from '../../shared/text/wording';
import { parseSlotBarcode } from '../../shared/domain/barcodes';
import type { AuditKind, AuditLogColumns } from '../../shared/db/entities/audit-log.entity';
import type { AnyEventType, EventDataOf, TypedWallEvent } from '../../shared/events/event-schemas';
import type { CommandName } from '../../shared/commands/commands';

/** One audit_log row as the audit worker writes it. */
export interface AuditRecord extends AuditLogColumns {
  event_id: string;
  client_id: number;
  /** The warehouse of the record's wall (ListAuditLogs filters by it), as the wall stands when the record is written. */
  warehouse_id: number | null;
  occurred_at: string;
  kind: AuditKind;
  is_license_plate: boolean;
  data: unknown;
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
// A refused command names a slot as it was typed or scanned (`b-583032e0`); the record keeps its crc,
// so the slot's listings find it (docs/api.md §9, Audit logs).
const slotCrc = (v: string | null) => (v === null ? null : (parseSlotBarcode(v)?.crc ?? v));

const COMMAND_KIND: Record<CommandName, AuditKind> = {
  'session.start': 'session',
  'session.renew': 'session',
  'session.stop': 'session',
  'session.expire': 'session',
  'item.scan': 'sort-box-item',
  'item.confirm': 'sort-box-item',
  'item.cancel': 'sort-box-item',
  'item.swap': 'sort-box-item',
  'slot.release': 'sort-box',
  // A refused wall edit or slot attachment is about the wall, like the wall.updated event it would have written.
  'wall.update': 'wall',
  'slots.attach': 'wall',
  'slot.detach': 'wall',
};

/**
 * The kind of record each event type makes: which of the typed listings shows it. One entry per type of
 * the event schemas (shared/events/event-schemas.ts): the compiler wants each, and no other.
 */
const KIND_OF: { [T in AnyEventType]: AuditKind | ((d: EventDataOf<T>) => AuditKind) } = {
  'session.started': 'session',
  'session.renewed': 'session',
  'session.ended': 'session',
  'sort-box-item.created': 'sort-box-item',
  'sort-box-item.confirmed': 'sort-box-item',
  'sort-box-item.cancelled': 'sort-box-item',
  'sort-box-item.swapped': 'sort-box-item',
  'sort-box.completed': 'sort-box',
  'sort-box.released': 'sort-box',
  'wall.updated': 'wall',
  'command.refused': (d) => (Object.hasOwn(COMMAND_KIND, d.command) ? COMMAND_KIND[d.command as CommandName] : 'other'),
  'lights.mode': 'wall',
  'lights.controller': 'other',
  // A slot button refused on the device is a record of that slot.
  'lights.button': 'sort-box',
};

/** The kind of record an event makes. */
export function auditKind(event: TypedWallEvent): AuditKind {
  const k = KIND_OF[event.type] as AuditKind | ((d: unknown) => AuditKind);
  return typeof k === 'function' ? k(event.data) : k;
}

/** A session record in an audit log never carries its token (a credential). */
function withoutTokens(data: unknown): unknown {
  const d = obj(data);
  if (!('session' in d)) return data;
  const { token: _token, ...session } = obj(d.session);
  return { ...d, session };
}

/**
 * The names an audit message uses that events carry only as ids (employees, walls), resolved once per
 * batch (auditNamesFor, workers/audit/audit-names.ts). An id without a name is written as the id.
 */
export interface AuditNames {
  employees: ReadonlyMap<number, string>;
  walls: ReadonlyMap<number, string>;
  /** Each wall's client and warehouse (a record takes the warehouse of its wall when the wall is of its client). */
  warehouses: ReadonlyMap<number, { clientId: number; warehouseId: number | null }>;
}

export const NO_AUDIT_NAMES: AuditNames = { employees: new Map(), walls: new Map(), warehouses: new Map() };

type MessageFields = Pick<AuditRecord, 'wall_id' | 'user_id' | 'order_id' | 'picklist_id' | 'crc' | 'barcode' | 'sort_box_item_id'>;

const SESSION_END_WORDS: Record<string, string> = {
  Stopped: 'stopped by its sorter',
  Replaced: 'replaced by a new connection of the same sorter',
  Expired: 'expired after inactivity',
  Disconnected: 'disconnected by a Manager',
};

/**
 * The record's message, for a person reading the log: who (the employee's name), what (units × SKU),
 * where (the slot's number on the wall, the wall's name), which order. Ids stay in the record's columns.
 */
function message(e: TypedWallEvent, f: MessageFields, names: AuditNames): string {
  // Names are written as given (never re-cased); an employee without one as `User 5`.
  const person = (id: number | null) => (id === null ? null : (names.employees.get(id) ?? `User ${id}`));
  const who = person(f.user_id) ?? 'The service';
  const wall = f.wall_id === null ? 'a wall' : names.walls.has(f.wall_id) ? `wall '${names.walls.get(f.wall_id)}'` : `wall ${f.wall_id}`;
  // The number a person reads on the wall; the crc only for a slot detached since (position 0).
  const slotOf = (box: { position?: number | null; crc?: string | null } | undefined, crc = box?.crc ?? null) => {
    const position = box?.position ?? null;
    return position !== null && position > 0 ? `slot ${position}` : crc ? `slot ${crc}` : 'a slot';
  };
  const item = 'item' in e.data ? e.data.item : undefined;
  const slot = slotOf(item ?? ('sortBox' in e.data ? e.data.sortBox : undefined), f.crc);
  const order = `order ${f.order_id ?? '?'}`;
  const sku = item?.sku ?? f.barcode ?? '?';
  // The barcode as scanned, when it is not the SKU itself (a UPC or an alias).
  const scanned = f.barcode !== null && f.barcode.toUpperCase() !== sku.toUpperCase() ? ` ('${f.barcode}')` : '';
  const units = (n: number | null | undefined) => `${n ?? '?'} × ${sku}`;
  switch (e.type) {
    case 'session.started': {
      const color = e.data.session.color;
      return `${who} connected to ${wall}${color ? ` (${color})` : ''}${f.picklist_id !== null ? ` for picklist ${f.picklist_id}` : ''}.`;
    }
    case 'session.renewed':
      return `${who} renewed their session on ${wall}.`;
    case 'session.ended': {
      const reason = e.data.session.endReason;
      return `The session of ${person(f.user_id) ?? 'a sorter'} on ${wall} ended: ${(reason && SESSION_END_WORDS[reason]) ?? 'ended'}.`;
    }
    case 'sort-box-item.created':
      return `${who} scanned ${sku}${scanned} for ${order}: ${slot}.`;
    case 'sort-box-item.confirmed':
      return `${who} confirmed ${units(e.data.item.confirmedUnits)}${e.data.item.serial ? ` (serial '${e.data.item.serial}')` : ''} into ${slot} (${order}).`;
    case 'sort-box-item.cancelled': {
      const why =
        e.data.reason === 'slot-force-released' ? ' by a forced release of the slot'
        : e.data.reason === 'session-ended' ? ' as the session ended'
        : e.data.reason === 'short-button' ? " with the slot's short button"
        : '';
      return `The scan of ${units(e.data.item.units)} by ${person(f.user_id) ?? 'the service'} into ${slot} (${order}) was cancelled${why}.`;
    }
    case 'sort-box-item.swapped':
      return `${who} moved ${order} from ${slotOf(e.data.from)} to ${slotOf(e.data.to)} (swap of ${sku}).`;
    case 'sort-box.completed':
      return `Order ${f.order_id ?? '?'} is complete in ${slot} of ${wall}: ready for the shipper.`;
    case 'sort-box.released':
      return `${who} released ${slot} of ${wall}${f.order_id !== null ? ` (${order})` : ''}${e.data.forced ? ' by force' : ''}.`;
    case 'wall.updated': {
      const boxes = e.data.sortBoxes?.length ?? null;
      const what =
        e.data.change === 'sort-boxes-attached' ? `${boxes === null ? 'slots' : count(boxes, 'slot')} attached`
        : e.data.change === 'sort-box-detached' ? `${slotOf(e.data.sortBoxes?.[0])} detached`
        : 'its settings changed';
      const named = e.data.wall.name ?? (f.wall_id !== null ? names.walls.get(f.wall_id) : undefined);
      return `${named ? `Wall '${named}'` : `Wall ${f.wall_id ?? '?'}`} was updated: ${what}.`;
    }
    case 'command.refused':
      return e.data.detail || `${e.data.command} was refused (${e.data.code}).`;
    case 'lights.mode':
      return e.data.mode === 'normal' ? `${who} set the lights of ${wall} back to normal.` : `${who} started the ${e.data.mode === 'test' ? 'light test' : 'show-address mode'} on ${wall}.`;
    case 'lights.controller': {
      const c = e.data.controller;
      return `Light controller '${c.id}' (${c.driver}) of ${wall} is ${c.online ? 'online' : 'offline'}.`;
    }
    case 'lights.button':
      return `The ${e.data.button} button of ${e.data.position ? `slot ${e.data.position}` : slot} was refused on the device: ${e.data.detail || e.data.code}`;
    default:
      return unhandled(e);
  }
}

/** The compiler's check that the switch above handles every event type. */
function unhandled(e: never): never {
  throw new Error(`no audit message for ${(e as TypedWallEvent).type}`);
}

/** The ids a record's columns take from its event. */
function fieldsOf(e: TypedWallEvent): MessageFields & { session_id: number | null } {
  if (e.type === 'command.refused') {
    const r = e.data;
    return {
      wall_id: e.wallId,
      user_id: r.userId,
      order_id: r.orderId,
      picklist_id: r.picklistId,
      crc: slotCrc(r.crc),
      barcode: r.barcode,
      sort_box_item_id: r.sortBoxItemId,
      session_id: r.sessionId,
    };
  }
  // Read by the fields each type's schema gives it: a field renamed there fails this compile.
  const d = e.data;
  const item = 'item' in d ? d.item : null;
  const sortBox = 'sortBox' in d ? d.sortBox : 'to' in d ? d.to : null;
  const session = 'session' in d ? d.session : null;
  return {
    wall_id: e.wallId,
    user_id: item?.userId ?? session?.userId ?? ('userId' in d ? d.userId : null),
    order_id: item?.orderId ?? ('orderId' in d ? d.orderId : null) ?? sortBox?.orderId ?? null,
    picklist_id: session?.picklistId ?? null,
    crc: item?.crc ?? sortBox?.crc ?? ('crc' in d ? d.crc : null),
    barcode: item?.barcode ?? null,
    sort_box_item_id: item?.id ?? null,
    session_id: session?.id ?? null,
  };
}

/**
 * Turns one committed event (or a refused command) into its audit record; `names` are the batch's
 * employee and wall names (auditNamesFor), which its message uses. The event comes decoded by its
 * type's schema (the consumer's eventConsumer: one that does not match is recorded in failed_job).
 */
export function toAuditRecord(e: TypedWallEvent, names: AuditNames): AuditRecord {
  const fields = fieldsOf(e);
  const kind = auditKind(e);
  const wall = fields.wall_id === null ? undefined : names.warehouses.get(fields.wall_id);
  return {
    event_id: e.id,
    client_id: e.clientId,
    warehouse_id: wall && wall.clientId === e.clientId ? wall.warehouseId : null,
    occurred_at: e.occurredAt,
    type: e.type,
    ...fields,
    kind,
    // A refused command, and a slot button refused on the device, are errors.
    is_error: e.type === 'command.refused' || e.type === 'lights.button',
    is_license_plate: kind === 'license-plate',
    message: message(e, fields, names),
    data: withoutTokens(e.data),
  };
}
