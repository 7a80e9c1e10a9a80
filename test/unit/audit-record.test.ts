import { NO_AUDIT_NAMES, toAuditRecord, type AuditNames } from '../../workers/audit/audit-record';
import { commandRefusedEventId } from '../../shared/events/command-refused';
import { decodeEvent, isKnownEventType, MalformedEventError } from '../../shared/events/event-schemas';
import { EVENT_SAMPLES, sampleData } from '../support/event-samples';

// An event of the type: its sample data (test/support/event-samples.ts) with `data` laid on it.
const event = (type: string, data: unknown) =>
  decodeEvent({ id: '7b0e4c52-9a3e-4b0a-8f43-2f5c2b1d9e10', type, occurredAt: '2026-11-23T08:00:00.000Z', clientId: 4, wallId: 9, data: isKnownEventType(type) ? sampleData(type, data) : data });
const names: AuditNames = {
  employees: new Map([[5, 'Ana Ruiz'], [6, 'Max Manager']]),
  walls: new Map([[9, 'Jackson St']]),
  warehouses: new Map([[9, { clientId: 4, warehouseId: 2 }]]),
};
const item = { id: 31, userId: 5, orderId: 77, crc: '583032E0', position: 4, sku: 'MUG-CERAMIC-12OZ', barcode: 'MUG12', units: 1, confirmedUnits: 0 };
const sortBox = { ...EVENT_SAMPLES['sort-box-item.confirmed'].sortBox, crc: '583032E0', position: 4 };
const message = (type: string, data: unknown, n = names) => toAuditRecord(event(type, data), n).message;

describe('audit records from events', () => {
  it('takes the ids an item event names, and a kind per type', () => {
    const r = toAuditRecord(event('sort-box-item.created', { item: { id: 31, userId: 5, orderId: 77, crc: 'AB12CD34', barcode: '0123' }, sortBox: { crc: 'AB12CD34' } }), NO_AUDIT_NAMES);
    expect(r).toMatchObject({ kind: 'sort-box-item', wall_id: 9, user_id: 5, order_id: 77, crc: 'AB12CD34', barcode: '0123', sort_box_item_id: 31, is_error: false });
    expect(toAuditRecord(event('sort-box.released', {}), names).kind).toBe('sort-box');
    expect(toAuditRecord(event('wall.updated', {}), names).kind).toBe('wall');
    expect(toAuditRecord(event('lights.button', {}), names)).toMatchObject({ kind: 'sort-box', is_error: true });
  });

  it("takes the warehouse of the record's wall when the wall is of the event's client", () => {
    expect(toAuditRecord(event('sort-box.released', {}), names).warehouse_id).toBe(2);
    expect(toAuditRecord(event('sort-box.released', {}), NO_AUDIT_NAMES).warehouse_id).toBeNull();
    const otherClients = { ...names, warehouses: new Map([[9, { clientId: 5, warehouseId: 2 }]]) };
    expect(toAuditRecord(event('sort-box.released', {}), otherClients).warehouse_id).toBeNull();
  });

  it('an event of no known type, or whose data fails its schema, is refused with MalformedEventError (the consumer records it as failed)', () => {
    expect(() => event('something.else', {})).toThrow(MalformedEventError);
    expect(() => event('sort-box.released', { forced: 'yes' })).toThrow(/sort-box\.released.*forced/);
  });

  it('a swap is recorded at the target slot; a session record never keeps the token', () => {
    expect(toAuditRecord(event('sort-box-item.swapped', { item: { id: 1, orderId: 2, crc: 'TO000000' }, from: { crc: 'FROM0000' }, to: { crc: 'TO000000' } }), names).crc).toBe('TO000000');
    const s = toAuditRecord(event('session.started', { session: { id: 12, token: 'secret-token', userId: 3, picklistId: 8 } }), names);
    expect(s).toMatchObject({ kind: 'session', session_id: 12, user_id: 3, picklist_id: 8 });
    expect(JSON.stringify(s.data)).not.toContain('secret-token');
  });

  it('a refused command is an error record of its command\'s kind, naming the slot by its crc however it was scanned', () => {
    const r = toAuditRecord(event('command.refused', {
      command: 'slot.release', code: 'slot-not-complete', detail: 'Slot 3 still sorts order 7.', sessionId: null, userId: 2, barcode: null,
      barcodeInputMethod: null, sortBoxItemId: null, crc: 'b-ab12cd34', orderId: null, picklistId: null,
    }), names);
    expect(r).toMatchObject({ kind: 'sort-box', is_error: true, user_id: 2, crc: 'AB12CD34', message: 'Slot 3 still sorts order 7.' });
    expect(toAuditRecord(event('command.refused', { command: 'session.start', code: 'sorter-limit-reached', detail: 'x' }), names).kind).toBe('session');
    expect(toAuditRecord(event('command.refused', { command: 'item.confirm', code: 'wrong-slot', detail: 'x', crc: 'not a slot' }), names).crc).toBe('not a slot');
  });

  it('a refusal\'s event id depends on the command id only', () => {
    expect(commandRefusedEventId('a')).toBe(commandRefusedEventId('a'));
    expect(commandRefusedEventId('a')).not.toBe(commandRefusedEventId('b'));
  });
});

describe('audit messages name people, slots and products as the floor does', () => {
  it('says the employee\'s name, the units and SKU, the slot\'s number on the wall and the order', () => {
    expect(message('sort-box-item.confirmed', { item: { ...item, status: 'Confirmed', confirmedUnits: 1 }, sortBox })).toBe('Ana Ruiz confirmed 1 × MUG-CERAMIC-12OZ into slot 4 (order 77).');
    expect(message('sort-box-item.confirmed', { item: { ...item, units: 3, confirmedUnits: 3 }, sortBox })).toBe('Ana Ruiz confirmed 3 × MUG-CERAMIC-12OZ into slot 4 (order 77).');
    expect(message('sort-box-item.created', { item, sortBox })).toBe("Ana Ruiz scanned MUG-CERAMIC-12OZ ('MUG12') for order 77: slot 4.");
    expect(message('sort-box-item.created', { item: { ...item, barcode: 'mug-ceramic-12oz' }, sortBox })).toBe('Ana Ruiz scanned MUG-CERAMIC-12OZ for order 77: slot 4.');
    expect(message('sort-box-item.cancelled', { item, sortBox })).toBe('The scan of 1 × MUG-CERAMIC-12OZ by Ana Ruiz into slot 4 (order 77) was cancelled.');
    expect(message('sort-box-item.cancelled', { item, sortBox, reason: 'slot-force-released' })).toMatch(/was cancelled by a forced release of the slot\.$/);
    expect(message('sort-box-item.cancelled', { item, sortBox, reason: 'session-ended' })).toMatch(/was cancelled as the session ended\.$/);
    expect(message('sort-box-item.swapped', { item, from: sortBox, to: { crc: '11111111', position: 7 } })).toBe('Ana Ruiz moved order 77 from slot 4 to slot 7 (swap of MUG-CERAMIC-12OZ).');
  });

  it('slots and walls: the number and name a person reads; a detached slot by its crc', () => {
    expect(message('sort-box.completed', { sortBox: { ...sortBox, orderId: 77 }, orderId: 77 })).toBe("Order 77 is complete in slot 4 of wall 'Jackson St': ready for the shipper.");
    expect(message('sort-box.released', { sortBox, orderId: 77, forced: false, userId: 6 })).toBe("Max Manager released slot 4 of wall 'Jackson St' (order 77).");
    expect(message('sort-box.released', { sortBox: { ...sortBox, orderId: null }, orderId: null, forced: true, userId: 6 })).toBe("Max Manager released slot 4 of wall 'Jackson St' by force.");
    expect(message('sort-box-item.confirmed', { item: { ...item, position: 0, confirmedUnits: 1 }, sortBox })).toBe('Ana Ruiz confirmed 1 × MUG-CERAMIC-12OZ into slot 583032E0 (order 77).');
    expect(message('wall.updated', { wall: { name: 'Jackson St' }, change: 'sort-boxes-attached', sortBoxes: [sortBox, sortBox] })).toBe("Wall 'Jackson St' was updated: 2 slots attached.");
    expect(message('wall.updated', { wall: { name: 'Jackson St' }, change: 'sort-box-detached', sortBoxes: [sortBox] })).toBe("Wall 'Jackson St' was updated: slot 4 detached.");
    expect(message('wall.updated', { wall: { name: 'Dock 2' }, change: 'wall' })).toBe("Wall 'Dock 2' was updated: its settings changed.");
  });

  it('sessions: who connected, in which color, and why a session ended', () => {
    const session = { id: 12, userId: 5, color: 'Red', picklistId: null, endReason: null };
    expect(message('session.started', { session })).toBe("Ana Ruiz connected to wall 'Jackson St' (Red).");
    expect(message('session.started', { session: { ...session, picklistId: 3 } })).toBe("Ana Ruiz connected to wall 'Jackson St' (Red) for picklist 3.");
    expect(message('session.renewed', { session })).toBe("Ana Ruiz renewed their session on wall 'Jackson St'.");
    expect(message('session.ended', { session: { ...session, endReason: 'Expired' } })).toBe("The session of Ana Ruiz on wall 'Jackson St' ended: expired after inactivity.");
    expect(message('session.ended', { session: { ...session, endReason: 'Disconnected' } })).toMatch(/disconnected by a Manager\.$/);
  });

  it('an id without a name is written as the id', () => {
    expect(message('sort-box-item.confirmed', { item: { ...item, confirmedUnits: 1 }, sortBox }, NO_AUDIT_NAMES)).toBe('User 5 confirmed 1 × MUG-CERAMIC-12OZ into slot 4 (order 77).');
    expect(message('session.renewed', { session: { userId: 5 } }, NO_AUDIT_NAMES)).toBe('User 5 renewed their session on wall 9.');
  });
});
