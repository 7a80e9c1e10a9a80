import { count } from '../../shared/text/wording';
import { parseSlotBarcode } from '../../shared/domain/barcodes';
import type { AuditKind, AuditLogColumns } from '../../shared/db/entities/audit-log.entity';
import { COMMAND_REFUSED, type CommandRefusedData } from '../../shared/events/command-refused';
import type { WallEvent } from '../../shared/events/channels';
import type { CommandName } from '../../shared/commands/commands';

/** One audit_log row as the audit worker writes it (warehouse_id is filled from the wall in SQL). */
export interface AuditRecord extends AuditLogColumns {
  event_id: string;
  client_id: number;
  occurred_at: string;
  kind: AuditKind;
  is_license_plate: boolean;
  data: unknown;
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
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

/** The kind of record an event type makes: which of the typed listings shows it. */
export function auditKind(type: string, data: Obj): AuditKind {
  if (type === COMMAND_REFUSED) {
    const command = str(data.command);
    return command !== null && Object.hasOwn(COMMAND_KIND, command) ? COMMAND_KIND[command as CommandName] : 'other';
  }
  if (type.startsWith('license-plate')) return 'license-plate';
  if (type.startsWith('session.')) return 'session';
  if (type.startsWith('sort-box-item.')) return 'sort-box-item';
  if (type.startsWith('sort-box.')) return 'sort-box';
  if (type.startsWith('wall.') || type === 'lights.mode') return 'wall';
  // A slot button refused on the device is a record of that slot.
  if (type === 'lights.button') return 'sort-box';
  return 'other';
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
}

export const NO_AUDIT_NAMES: AuditNames = { employees: new Map(), walls: new Map() };

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
function message(type: string, d: Obj, f: MessageFields, names: AuditNames): string {
  // Names are written as given (never re-cased); an employee without one as `User 5`.
  const person = (id: number | null) => (id === null ? null : (names.employees.get(id) ?? `User ${id}`));
  const who = person(f.user_id) ?? 'The service';
  const wall = f.wall_id === null ? 'a wall' : names.walls.has(f.wall_id) ? `wall '${names.walls.get(f.wall_id)}'` : `wall ${f.wall_id}`;
  // The number a person reads on the wall; the crc only for a slot detached since (position 0).
  const slotOf = (box: Obj, crc = str(box.crc)) => {
    const position = num(box.position);
    return position !== null && position > 0 ? `slot ${position}` : crc ? `slot ${crc}` : 'a slot';
  };
  const item = obj(d.item);
  const slot = slotOf(Object.keys(item).length ? item : obj(d.sortBox), f.crc);
  const order = `order ${f.order_id ?? '?'}`;
  const sku = str(item.sku) ?? f.barcode ?? '?';
  // The barcode as scanned, when it is not the SKU itself (a UPC or an alias).
  const scanned = f.barcode !== null && f.barcode.toUpperCase() !== sku.toUpperCase() ? ` ('${f.barcode}')` : '';
  const units = (n: number | null) => `${n ?? '?'} × ${sku}`;
  switch (type) {
    case 'session.started': {
      const color = str(obj(d.session).color);
      return `${who} connected to ${wall}${color ? ` (${color})` : ''}${f.picklist_id !== null ? ` for picklist ${f.picklist_id}` : ''}.`;
    }
    case 'session.renewed':
      return `${who} renewed their session on ${wall}.`;
    case 'session.ended': {
      const reason = str(obj(d.session).endReason);
      return `The session of ${person(f.user_id) ?? 'a sorter'} on ${wall} ended: ${(reason && SESSION_END_WORDS[reason]) ?? 'ended'}.`;
    }
    case 'sort-box-item.created':
      return `${who} scanned ${sku}${scanned} for ${order}: ${slot}.`;
    case 'sort-box-item.confirmed':
      return `${who} confirmed ${units(num(item.confirmedUnits) ?? num(item.units))} into ${slot} (${order}).`;
    case 'sort-box-item.cancelled': {
      const why =
        d.reason === 'slot-force-released' ? ' by a forced release of the slot'
        : d.reason === 'session-ended' ? ' as the session ended'
        : d.reason === 'short-button' ? " with the slot's short button"
        : '';
      return `The scan of ${units(num(item.units))} by ${person(f.user_id) ?? 'the service'} into ${slot} (${order}) was cancelled${why}.`;
    }
    case 'sort-box-item.swapped':
      return `${who} moved ${order} from ${slotOf(obj(d.from))} to ${slotOf(obj(d.to))} (swap of ${sku}).`;
    case 'sort-box.completed':
      return `Order ${f.order_id ?? '?'} is complete in ${slot} of ${wall}: ready for the shipper.`;
    case 'sort-box.released':
      return `${who} released ${slot} of ${wall}${f.order_id !== null ? ` (${order})` : ''}${d.forced === true ? ' by force' : ''}.`;
    case 'wall.updated': {
      const change = str(d.change);
      const boxes = Array.isArray(d.sortBoxes) ? d.sortBoxes.length : null;
      const what =
        change === 'sort-boxes-attached' ? `${boxes === null ? 'slots' : count(boxes, 'slot')} attached`
        : change === 'sort-box-detached' ? `${slotOf(obj(Array.isArray(d.sortBoxes) ? d.sortBoxes[0] : null))} detached`
        : 'its settings changed';
      const named = str(obj(d.wall).name) ?? (f.wall_id !== null ? names.walls.get(f.wall_id) : undefined);
      return `${named ? `Wall '${named}'` : `Wall ${f.wall_id ?? '?'}`} was updated: ${what}.`;
    }
    case 'lights.mode':
      return str(d.mode) === 'normal' ? `${who} set the lights of ${wall} back to normal.` : `${who} started the ${str(d.mode) === 'test' ? 'light test' : 'show-address mode'} on ${wall}.`;
    case 'lights.controller': {
      const c = obj(d.controller);
      return `Light controller '${str(c.id) ?? '?'}' (${str(c.driver) ?? '?'}) of ${wall} is ${c.online === true ? 'online' : 'offline'}.`;
    }
    case 'lights.button': {
      const position = num(d.position);
      return `The ${str(d.button) ?? '?'} button of ${position ? `slot ${position}` : slot} was refused on the device: ${str(d.detail) ?? str(d.code) ?? '?'}`;
    }
    default:
      return `${type}.`;
  }
}

/**
 * Turns one committed event (or a refused command) into its audit record; `names` are the batch's
 * employee and wall names (auditNamesFor), which its message uses.
 */
export function toAuditRecord(event: WallEvent, names: AuditNames): AuditRecord {
  const d = obj(event.data);
  const base = { event_id: event.id, client_id: event.clientId, occurred_at: event.occurredAt, type: event.type, wall_id: event.wallId };
  const kind = auditKind(event.type, d);
  if (event.type === COMMAND_REFUSED) {
    // Stored JSON: each field is checked (str, num) before use.
    const r = d as { [K in keyof CommandRefusedData]?: unknown };
    return {
      ...base,
      kind,
      user_id: num(r.userId),
      order_id: num(r.orderId),
      picklist_id: num(r.picklistId),
      crc: slotCrc(str(r.crc)),
      barcode: str(r.barcode),
      sort_box_item_id: num(r.sortBoxItemId),
      session_id: num(r.sessionId),
      is_error: true,
      is_license_plate: false,
      message: str(r.detail) ?? `${str(r.command) ?? 'A command'} was refused (${str(r.code) ?? 'error'}).`,
      data: d,
    };
  }
  const item = obj(d.item);
  const sortBox = obj(d.sortBox ?? d.to);
  const session = obj(d.session);
  const fields = {
    wall_id: event.wallId,
    user_id: num(item.userId) ?? num(session.userId) ?? num(d.userId),
    order_id: num(item.orderId) ?? num(d.orderId) ?? num(sortBox.orderId),
    picklist_id: num(session.picklistId) ?? num(d.picklistId),
    crc: str(item.crc) ?? str(sortBox.crc) ?? str(d.crc),
    barcode: str(item.barcode) ?? str(d.barcode),
    sort_box_item_id: num(item.id),
    session_id: num(session.id) ?? num(d.sessionId),
  };
  return {
    ...base,
    ...fields,
    kind,
    // A slot button refused on the device is a refusal too.
    is_error: event.type === 'lights.button',
    is_license_plate: kind === 'license-plate',
    message: str(d.message) ?? message(event.type, d, fields, names),
    data: withoutTokens(event.data),
  };
}
