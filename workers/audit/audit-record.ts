import { count } from '../../shared/text/wording';
import type { AuditKind, AuditLogColumns } from '../../shared/db/entities/audit-log.entity';
import { COMMAND_REFUSED, type CommandRefusedData } from '../../shared/events/command-refused';
import type { WallEvent } from '../../shared/events/channels';
import type { CommandName } from '../../shared/queue/commands';

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
  if (type.startsWith('wall.')) return 'wall';
  return 'other';
}

/** A session record in an audit log never carries its token (a credential). */
function withoutTokens(data: unknown): unknown {
  const d = obj(data);
  if (!('session' in d)) return data;
  const { token: _token, ...session } = obj(d.session);
  return { ...d, session };
}

function message(type: string, d: Obj, f: Omit<AuditRecord, 'message' | 'data' | 'kind' | 'type' | 'event_id' | 'client_id' | 'occurred_at' | 'is_error' | 'is_license_plate'>): string {
  const who = f.user_id !== null ? `User ${f.user_id}` : 'The service';
  const slot = f.crc ? ` slot ${f.crc}` : ' a slot';
  switch (type) {
    case 'session.started':
      return `${who} connected to wall ${f.wall_id}${f.picklist_id !== null ? ` for picklist ${f.picklist_id}` : ''}.`;
    case 'session.renewed':
      return `${who} renewed their session on wall ${f.wall_id}.`;
    case 'session.ended':
      return `The session of user ${f.user_id ?? '?'} on wall ${f.wall_id} ended (${str(obj(d.session).endReason) ?? 'ended'}).`;
    case 'sort-box-item.created':
      return `${who} scanned '${f.barcode ?? '?'}': order ${f.order_id ?? '?'} in${slot}.`;
    case 'sort-box-item.confirmed':
      {
      const units = num(obj(d.item).units);
      return `${who} confirmed ${units === null ? '? units' : count(units, 'unit')} of '${f.barcode ?? '?'}' into${slot} (order ${f.order_id ?? '?'}).`;
    }
    case 'sort-box-item.cancelled':
      return `Item ${f.sort_box_item_id ?? '?'} ('${f.barcode ?? '?'}') in${slot} was cancelled.`;
    case 'sort-box-item.swapped':
      return `Item ${f.sort_box_item_id ?? '?'} of order ${f.order_id ?? '?'} moved from slot ${str(obj(d.from).crc) ?? '?'} to slot ${str(obj(d.to).crc) ?? '?'}.`;
    case 'sort-box.completed':
      return `Order ${f.order_id ?? '?'} is complete in${slot}.`;
    case 'sort-box.released':
      return `${who} released${slot} (order ${f.order_id ?? '?'})${d.forced === true ? ' by force' : ''}.`;
    case 'wall.updated':
      return `Wall ${f.wall_id} was updated (${str(d.change) ?? 'wall'}).`;
    default:
      return `${type}.`;
  }
}

/** Turns one committed event (or a refused command) into its audit record. */
export function toAuditRecord(event: WallEvent): AuditRecord {
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
      crc: str(r.crc),
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
    is_error: false,
    is_license_plate: kind === 'license-plate',
    message: str(d.message) ?? message(event.type, d, fields),
    data: withoutTokens(event.data),
  };
}
