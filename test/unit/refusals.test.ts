import { AppError } from '../../shared/errors/app-error';
import { decideOrRefuse, refusalDetail, refusalError, type Refusal, type RefusalFacts } from '../../machines/refusals';
import { sortBoxItemMachine } from '../../machines/sort-box-item.machine';
import { sessionMachine } from '../../machines/session.machine';
import { slotMachine } from '../../machines/slot.machine';

const item = { id: 12, orderId: 7, sku: 'SKU-A', crc: 'A1B2C3D4', confirmedAt: new Date('2026-01-02T03:04:05Z') };
const slot = { position: 3, crc: 'A1B2C3D4', orderId: 7 };

describe('refusalDetail: the words of each refusal, by the event refused', () => {
  const table: Array<[string, Refusal, RefusalFacts, string]> = [
    ['confirm of a confirmed item', { code: 'item-already-confirmed', event: 'CONFIRM', state: 'Confirmed' }, { item, slot },
      'This unit of SKU-A is already confirmed in slot 3: nothing more to do for it. Scan the next product.'],
    ['cancel of a confirmed item', { code: 'item-already-confirmed', event: 'CANCEL', state: 'Confirmed' }, { item, slot },
      'This unit of SKU-A is already confirmed in slot 3; a confirmed unit cannot be cancelled.'],
    ['swap of a confirmed item', { code: 'item-already-confirmed', event: 'SWAP', state: 'Confirmed' }, { item, slot },
      'This unit of SKU-A is already confirmed in slot 3; it can no longer be moved.'],
    ['a confirmed item whose slot was detached', { code: 'item-already-confirmed', state: 'Confirmed' }, { item, slot: null },
      'This unit of SKU-A was confirmed; its slot has since been detached from the wall.'],
    ['cancel of a cancelled item', { code: 'item-already-cancelled', event: 'CANCEL', state: 'Cancelled' }, { item, slot },
      'This scan of SKU-A was already cancelled.'],
    ['confirm of a cancelled item', { code: 'item-already-cancelled', event: 'CONFIRM', state: 'Cancelled' }, { item, slot },
      'This scan of SKU-A was cancelled; scan the unit again.'],
    ['swap of a cancelled item', { code: 'item-already-cancelled', event: 'SWAP', state: 'Cancelled' }, { item, slot },
      'This scan of SKU-A was cancelled; scan the unit again.'],
    ['a cancelled item whose slot was detached', { code: 'item-already-cancelled', state: 'Cancelled' }, { item, slot: null },
      'This scan of SKU-A was cancelled; its slot has since been detached from the wall.'],
    ['too many units', { code: 'units-exceed-remaining', event: 'CONFIRM', state: 'PendingConfirmation' }, { item, slot, units: 5, remainingUnits: 3 },
      "Order 7 needs only 3 more units of SKU 'SKU-A' (other pending scans counted); you tried to confirm 5. Nothing was confirmed."],
    ['units when none remain', { code: 'units-exceed-remaining', event: 'CONFIRM', state: 'PendingConfirmation' }, { item, slot, units: 1, remainingUnits: 0 },
      "Order 7 needs no more units of SKU 'SKU-A' (other pending scans counted); you tried to confirm 1. Nothing was confirmed."],
    ['swap of a later product', { code: 'slot-not-swappable', event: 'SWAP', state: 'PendingConfirmation' }, { item, slot, earlierUnits: 1 },
      'Slot 3 (A1B2C3D4) already holds 1 earlier unit of order 7; only the first product of a slot can be moved.'],
    ['assign to a taken slot', { code: 'slot-not-empty', event: 'ASSIGN', state: 'Sorting' }, { slot },
      'Slot 3 (A1B2C3D4) holds order 7; choose an empty slot.'],
    ['release of an empty slot', { code: 'slot-not-complete', event: 'RELEASE', state: 'Empty' }, { slot: { ...slot, orderId: null } },
      'Slot 3 (A1B2C3D4) is already empty.'],
    ['release of a slot still sorting', { code: 'slot-not-complete', event: 'RELEASE', state: 'Sorting' }, { slot },
      'Slot 3 (A1B2C3D4) still waits for units of order 7; only a Complete slot can be released (a Manager may force it).'],
    ['activity on an ended session', { code: 'session-ended', event: 'ACTIVITY', state: 'Ended' },
      { session: { endReason: 'Expired', endedAt: '2026-01-02T03:04:05.000Z' } },
      'Your session on this wall has ended: it expired after inactivity. Connect to the wall again.'],
    ['stopping an ended session', { code: 'session-ended', event: 'STOP', state: 'Ended' },
      { session: { endReason: 'Replaced', endedAt: new Date('2026-01-02T03:04:05Z') } },
      'This session was replaced by a newer connection of the same user.'],
    ['renewing a session ended without a reason', { code: 'session-ended', event: 'RENEW', state: 'Ended' }, { session: { endReason: null, endedAt: null } },
      'This session has ended.'],
  ];

  it.each(table)('%s', (_what, refusal, facts, detail) => {
    expect(refusalDetail(refusal, facts)).toBe(detail);
    // Words for a person at the wall: no item id, no ISO timestamp.
    expect(detail).not.toMatch(/item 12|\d{4}-\d{2}-\d{2}T/);
  });

  it('keeps the item id, the confirm time and the session end in extension fields', () => {
    const confirmed = refusalError({ code: 'item-already-confirmed', event: 'CONFIRM', state: 'Confirmed' }, { item, slot }).toProblem();
    expect(confirmed).toMatchObject({ code: 'item-already-confirmed', status: 409, itemId: 12, confirmedAt: '2026-01-02T03:04:05.000Z' });
    const ended = refusalError({ code: 'session-ended', event: 'ACTIVITY', state: 'Ended' }, { session: { endReason: 'Replaced', endedAt: '2026-01-02T03:04:05.000Z' } });
    expect(ended.message).toBe('Your session on this wall has ended: you connected to it on another device. Connect to the wall again.');
    expect(ended.toProblem()).toMatchObject({ code: 'session-ended', endReason: 'Replaced', endedAt: '2026-01-02T03:04:05.000Z' });
    // Across the worker boundary (a command's answer) the fields stay.
    expect(AppError.fromProblem(confirmed).toProblem()).toEqual(confirmed);
  });

  it("falls back to the machine's own words when the facts are not known", () => {
    expect(refusalDetail({ code: 'slot-not-empty', event: 'DETACH', state: 'Sorting', detail: 'The slot holds an order being sorted; release it first.' }, { slot }))
      .toBe('The slot holds an order being sorted; release it first.');
    expect(refusalDetail({ code: 'invalid-transition', event: 'COMPLETE', state: 'Empty', detail: 'event COMPLETE is not accepted in state Empty' }, {}))
      .toBe('event COMPLETE is not accepted in state Empty');
    expect(refusalDetail({ code: 'units-exceed-remaining', event: 'CONFIRM', state: 'PendingConfirmation' }, {})).toBe('units-exceed-remaining');
  });

  it('refusalError carries the code, its status and the words', () => {
    const err = refusalError({ code: 'item-already-cancelled', event: 'CANCEL', state: 'Cancelled' }, { item, slot });
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ code: 'item-already-cancelled', status: 409, message: 'This scan of SKU-A was already cancelled.' });
    // The id and the time stay out of the words, in the problem's extension fields.
    expect(err.toProblem()).toMatchObject({ itemId: 12, confirmedAt: '2026-01-02T03:04:05.000Z' });
  });
});

describe('decideOrRefuse', () => {
  it('answers the accepted decision', () => {
    expect(decideOrRefuse(sortBoxItemMachine, 'PendingConfirmation', {}, { type: 'CANCEL' }, { item, slot })).toMatchObject({
      ok: true,
      value: 'Cancelled',
      emits: ['sort-box-item.cancelled'],
    });
  });

  it('throws the refusal with the words for the event refused and the state refusing it', () => {
    expect(() => decideOrRefuse(sortBoxItemMachine, 'Confirmed', {}, { type: 'SWAP', firstInSlot: true }, { item, slot })).toThrow(
      expect.objectContaining({ code: 'item-already-confirmed', message: 'This unit of SKU-A is already confirmed in slot 3; it can no longer be moved.' }),
    );
    expect(() => decideOrRefuse(slotMachine, 'Empty', {}, { type: 'RELEASE', force: false }, { slot })).toThrow(
      expect.objectContaining({ code: 'slot-not-complete', status: 409, message: 'Slot 3 (A1B2C3D4) is already empty.' }),
    );
    expect(() => decideOrRefuse(sessionMachine, 'Ended', { endReason: 'Stopped' }, { type: 'ACTIVITY' }, { session: { endReason: 'Stopped', endedAt: null } })).toThrow(
      expect.objectContaining({ code: 'session-ended', message: 'Your session on this wall has ended: it was stopped. Connect to the wall again.' }),
    );
  });

  it('throws an unhandled event as invalid-transition with the machine detail', () => {
    expect(() => decideOrRefuse(slotMachine, 'Empty', {}, { type: 'COMPLETE' }, {})).toThrow(
      expect.objectContaining({ code: 'invalid-transition', message: 'event COMPLETE is not accepted in state Empty' }),
    );
  });
});
