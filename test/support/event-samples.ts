import type { AnyEventType, EventDataIn } from '../../shared/events/event-schemas';

/** One complete `data` of every event type, valid by its schema (shared/events/event-schemas.ts). */
const item = {
  id: 31, wallId: 9, crc: '583032E0', sorterBarcode: 'A-583032E0', position: 4, status: 'PendingConfirmation' as const, units: 1, confirmedUnits: 0,
  orderId: 77, sku: 'MUG-CERAMIC-12OZ', barcode: 'MUG12', barcodeInputMethod: 'Scanned' as const, userId: 5, color: 'Red' as const,
  colorHex: '#FF0000', requiredUnits: 2, remainingUnits: 1, createdAt: '2026-11-23T08:00:00.000Z', confirmedAt: null, cancelledAt: null,
};
const sortBox = {
  id: 40, wallId: 9, serialNumber: 'SN-1', crc: '583032E0', sorterBarcode: 'A-583032E0', shipperBarcode: 'B-583032E0', position: 4,
  status: 'Sorting' as const, orderId: 77,
};
const session = {
  id: 12, wallId: 9, userId: 5, picklistId: null, color: 'Red' as const, colorHex: '#FF0000', status: 'Connected' as const,
  startedAt: '2026-11-23T08:00:00.000Z', lastActivityAt: '2026-11-23T08:00:00.000Z', expiresAt: '2026-11-23T09:00:00.000Z', endedAt: null, endReason: null,
};

export const EVENT_SAMPLES: { [T in AnyEventType]: EventDataIn<T> } = {
  'session.started': { session },
  'session.renewed': { session },
  'session.ended': { session: { ...session, status: 'Ended', endedAt: '2026-11-23T08:30:00.000Z', endReason: 'Stopped' } },
  'sort-box-item.created': { item, sortBox, color: 'Red', colorHex: '#FF0000' },
  'sort-box-item.confirmed': { item: { ...item, status: 'Confirmed', confirmedUnits: 1 }, sortBox },
  'sort-box-item.cancelled': { item: { ...item, status: 'Cancelled' }, sortBox },
  'sort-box-item.swapped': { item, from: sortBox, to: { ...sortBox, id: 41, crc: '11111111', position: 7 } },
  'sort-box.completed': { sortBox: { ...sortBox, status: 'Complete' }, orderId: 77 },
  'sort-box.released': { sortBox: { ...sortBox, status: 'Empty', orderId: null }, orderId: 77, forced: false, userId: 6 },
  'wall.updated': { wall: { id: 9, name: 'Jackson St' }, change: 'wall' },
  'command.refused': {
    command: 'item.confirm', code: 'wrong-slot', detail: 'That is slot 5; the unit goes in slot 4.', sessionId: 12, userId: 5, barcode: 'A-11111111',
    barcodeInputMethod: 'Scanned', sortBoxItemId: 31, crc: '583032E0', orderId: 77, picklistId: null,
  },
  'lights.mode': { mode: 'test', startedAt: '2026-11-23T08:00:00+00:00', until: '2026-11-23T08:05:00+00:00', userId: 6 },
  'lights.controller': { controller: { id: 'ctl-1', driver: 'mqtt', online: true, serialNumbers: ['SN-1'], address: null, lastSeenAt: '2026-11-23T08:00:00.000Z' } },
  'lights.button': { serialNumber: 'SN-1', crc: '583032E0', position: 4, button: 'confirm', driver: 'mqtt', code: 'nothing-to-confirm', detail: 'No scan waits in slot 4.' },
};

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

/** A type's sample with `over` laid on it (objects merged field by field; other values replace). */
export function sampleData(type: AnyEventType, over: unknown = {}): unknown {
  const merge = (base: unknown, o: unknown): unknown => {
    if (!isObj(base) || !isObj(o)) return o === undefined ? base : o;
    const out: Obj = { ...base };
    for (const [k, v] of Object.entries(o)) out[k] = merge(base[k], v);
    return out;
  };
  return merge(EVENT_SAMPLES[type], over);
}
