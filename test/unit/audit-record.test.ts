import { auditKind, toAuditRecord } from '../../workers/audit/audit-record';
import { commandRefusedEventId } from '../../shared/events/command-refused';

const event = (type: string, data: unknown) => ({ id: '7b0e4c52-9a3e-4b0a-8f43-2f5c2b1d9e10', type, occurredAt: '2026-11-23T08:00:00.000Z', clientId: 4, wallId: 9, data });

describe('audit records from events', () => {
  it('takes the ids an item event names, and a kind per type', () => {
    const r = toAuditRecord(event('sort-box-item.created', { item: { id: 31, userId: 5, orderId: 77, crc: 'AB12CD34', barcode: '0123' }, sortBox: { crc: 'AB12CD34' } }));
    expect(r).toMatchObject({ kind: 'sort-box-item', wall_id: 9, user_id: 5, order_id: 77, crc: 'AB12CD34', barcode: '0123', sort_box_item_id: 31, is_error: false });
    expect(r.message).toBe("User 5 scanned '0123': order 77 in slot AB12CD34.");
    expect(auditKind('sort-box.released', {})).toBe('sort-box');
    expect(auditKind('wall.updated', {})).toBe('wall');
    expect(auditKind('license-plate.generated', {})).toBe('license-plate');
    expect(auditKind('something.else', {})).toBe('other');
  });

  it('a swap is recorded at the target slot; a session record never keeps the token', () => {
    expect(toAuditRecord(event('sort-box-item.swapped', { item: { id: 1, orderId: 2 }, from: { crc: 'FROM0000' }, to: { crc: 'TO000000' } })).crc).toBe('TO000000');
    const s = toAuditRecord(event('session.started', { session: { id: 12, token: 'secret-token', userId: 3, picklistId: 8 } }));
    expect(s).toMatchObject({ kind: 'session', session_id: 12, user_id: 3, picklist_id: 8 });
    expect(JSON.stringify(s.data)).not.toContain('secret-token');
  });

  it('a refused command is an error record of its command\'s kind', () => {
    const r = toAuditRecord(event('command.refused', {
      command: 'slot.release', code: 'slot-not-complete', detail: 'Slot 3 still sorts order 7.', sessionId: null, userId: 2, barcode: null,
      barcodeInputMethod: null, sortBoxItemId: null, crc: 'B-AB12CD34', orderId: null, picklistId: null,
    }));
    expect(r).toMatchObject({ kind: 'sort-box', is_error: true, user_id: 2, crc: 'B-AB12CD34', message: 'Slot 3 still sorts order 7.' });
    expect(toAuditRecord(event('command.refused', { command: 'session.start', code: 'sorter-limit-reached', detail: 'x' })).kind).toBe('session');
  });

  it('a refusal\'s event id depends on the command id only', () => {
    expect(commandRefusedEventId('a')).toBe(commandRefusedEventId('a'));
    expect(commandRefusedEventId('a')).not.toBe(commandRefusedEventId('b'));
  });
});
