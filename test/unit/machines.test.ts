import { initialTransition, transition } from 'xstate';
import { decide, INVALID_TRANSITION } from '../../machines/decide';
import { sessionMachine, type SessionContext, type SessionEvent } from '../../machines/session.machine';
import { slotMachine, type SlotEvent } from '../../machines/slot.machine';
import { sortBoxItemMachine, type SortBoxItemEvent } from '../../machines/sort-box-item.machine';

describe('sort box item machine', () => {
  const confirm = (units: number, remainingUnits: number): SortBoxItemEvent => ({ type: 'CONFIRM', units, remainingUnits });

  it('starts in PendingConfirmation without actions', () => {
    const [snapshot, actions] = initialTransition(sortBoxItemMachine);
    expect(snapshot.value).toBe('PendingConfirmation');
    expect(actions).toEqual([]);
  });

  describe('PendingConfirmation', () => {
    const from = (event: SortBoxItemEvent) => decide(sortBoxItemMachine, 'PendingConfirmation', {}, event);

    it.each([
      [1, 1],
      [1, 5],
      [3, 3],
    ])('CONFIRM %i of %i remaining → Confirmed, emits sort-box-item.confirmed', (units, remaining) => {
      expect(from(confirm(units, remaining))).toEqual({
        ok: true,
        value: 'Confirmed',
        changed: true,
        context: {},
        emits: ['sort-box-item.confirmed'],
      });
    });

    it.each([
      [2, 1],
      [1, 0],
      [0, 3],
      [-1, 3],
      [1.5, 3],
    ])('CONFIRM %d of %d remaining → refused units-exceed-remaining', (units, remaining) => {
      const decision = from(confirm(units, remaining));
      expect(decision).toMatchObject({ ok: false, code: 'units-exceed-remaining' });
      expect(decision.ok === false && decision.detail).toContain(`${units} unit`);
    });

    it('CANCEL → Cancelled, emits sort-box-item.cancelled', () => {
      expect(from({ type: 'CANCEL' })).toEqual({
        ok: true,
        value: 'Cancelled',
        changed: true,
        context: {},
        emits: ['sort-box-item.cancelled'],
      });
    });

    it('SWAP of the first item in its slot stays pending, emits sort-box-item.swapped', () => {
      expect(from({ type: 'SWAP', firstInSlot: true })).toEqual({
        ok: true,
        value: 'PendingConfirmation',
        changed: false,
        context: {},
        emits: ['sort-box-item.swapped'],
      });
    });

    it('SWAP of a later item → refused slot-not-swappable', () => {
      expect(from({ type: 'SWAP', firstInSlot: false })).toMatchObject({ ok: false, code: 'slot-not-swappable' });
    });
  });

  describe.each([
    ['Confirmed', 'item-already-confirmed'],
    ['Cancelled', 'item-already-cancelled'],
  ])('%s', (state, code) => {
    it.each<SortBoxItemEvent>([
      confirm(1, 5),
      { type: 'CANCEL' },
      { type: 'SWAP', firstInSlot: true },
      { type: 'SWAP', firstInSlot: false },
    ])('%j → refused ' + code, (event) => {
      expect(decide(sortBoxItemMachine, state, {}, event)).toEqual({ ok: false, code });
    });
  });
});

describe('session machine', () => {
  const connected: SessionContext = { endReason: null };

  it('starts Connected with no end reason and no actions', () => {
    const [snapshot, actions] = initialTransition(sessionMachine);
    expect(snapshot.value).toBe('Connected');
    expect(snapshot.context).toEqual({ endReason: null });
    expect(actions).toEqual([]);
  });

  describe('Connected', () => {
    it('RENEW stays Connected, emits session.renewed', () => {
      expect(decide(sessionMachine, 'Connected', connected, { type: 'RENEW' })).toEqual({
        ok: true,
        value: 'Connected',
        changed: false,
        context: connected,
        emits: ['session.renewed'],
      });
    });

    it('ACTIVITY stays Connected, emits nothing', () => {
      expect(decide(sessionMachine, 'Connected', connected, { type: 'ACTIVITY' })).toEqual({
        ok: true,
        value: 'Connected',
        changed: false,
        context: connected,
        emits: [],
      });
    });

    it.each([
      ['STOP', 'Stopped'],
      ['REPLACE', 'Replaced'],
      ['EXPIRE', 'Expired'],
      ['DISCONNECT', 'Disconnected'],
    ] as const)('%s → Ended with endReason %s, emits session.ended', (type, endReason) => {
      expect(decide(sessionMachine, 'Connected', connected, { type })).toEqual({
        ok: true,
        value: 'Ended',
        changed: true,
        context: { endReason },
        emits: ['session.ended'],
      });
    });
  });

  describe('Ended', () => {
    it.each<SessionEvent['type']>(['RENEW', 'ACTIVITY', 'STOP', 'REPLACE', 'EXPIRE', 'DISCONNECT'])(
      '%s → refused session-ended, the first end reason kept',
      (type) => {
        expect(decide(sessionMachine, 'Ended', { endReason: 'Expired' }, { type })).toEqual({ ok: false, code: 'session-ended' });
      },
    );
  });
});

describe('slot machine', () => {
  it('starts Empty without actions', () => {
    const [snapshot, actions] = initialTransition(slotMachine);
    expect(snapshot.value).toBe('Empty');
    expect(actions).toEqual([]);
  });

  type Expected = { to: string; emits?: string[] } | { refused: string };
  const table: Array<[string, SlotEvent, Expected]> = [
    ['Empty', { type: 'ASSIGN' }, { to: 'Sorting' }],
    ['Empty', { type: 'VACATE' }, { refused: INVALID_TRANSITION }],
    ['Empty', { type: 'COMPLETE' }, { refused: INVALID_TRANSITION }],
    ['Empty', { type: 'RELEASE', force: false }, { refused: 'slot-not-complete' }],
    ['Empty', { type: 'RELEASE', force: true }, { to: 'Empty', emits: ['sort-box.released'] }],
    ['Empty', { type: 'DETACH' }, { to: 'Empty' }],

    ['Sorting', { type: 'ASSIGN' }, { refused: 'slot-not-empty' }],
    ['Sorting', { type: 'VACATE' }, { to: 'Empty' }],
    ['Sorting', { type: 'COMPLETE' }, { to: 'Complete', emits: ['sort-box.completed'] }],
    ['Sorting', { type: 'RELEASE', force: false }, { refused: 'slot-not-complete' }],
    ['Sorting', { type: 'RELEASE', force: true }, { to: 'Empty', emits: ['sort-box.released'] }],
    ['Sorting', { type: 'DETACH' }, { refused: 'slot-not-empty' }],

    ['Complete', { type: 'ASSIGN' }, { refused: 'slot-not-empty' }],
    ['Complete', { type: 'VACATE' }, { refused: INVALID_TRANSITION }],
    ['Complete', { type: 'COMPLETE' }, { refused: INVALID_TRANSITION }],
    ['Complete', { type: 'RELEASE', force: false }, { to: 'Empty', emits: ['sort-box.released'] }],
    ['Complete', { type: 'RELEASE', force: true }, { to: 'Empty', emits: ['sort-box.released'] }],
    ['Complete', { type: 'DETACH' }, { refused: 'slot-not-empty' }],
  ];

  it.each(table)('%s + %j', (state, event, expected) => {
    const decision = decide(slotMachine, state, {}, event);
    if ('refused' in expected) {
      expect(decision).toMatchObject({ ok: false, code: expected.refused });
    } else {
      expect(decision).toEqual({
        ok: true,
        value: expected.to,
        changed: expected.to !== state,
        context: {},
        emits: expected.emits ?? [],
      });
    }
  });
});

describe('decide', () => {
  it('throws on a stored status the machine does not know', () => {
    expect(() => decide(slotMachine, 'Broken', {}, { type: 'ASSIGN' })).toThrow();
  });

  it('reports an unhandled event as invalid-transition with a detail', () => {
    expect(decide(slotMachine, 'Empty', {}, { type: 'COMPLETE' })).toEqual({
      ok: false,
      code: INVALID_TRANSITION,
      detail: 'event COMPLETE is not accepted in state Empty',
    });
  });

  it('agrees with the raw transition() on a rebuilt snapshot', () => {
    const snapshot = sortBoxItemMachine.resolveState({ value: 'PendingConfirmation', context: {} });
    const [next, actions] = transition(sortBoxItemMachine, snapshot, { type: 'CONFIRM', units: 2, remainingUnits: 2 });
    expect(next.value).toBe('Confirmed');
    expect(actions.map((a) => ({ type: a.type, params: a.params }))).toEqual([
      { type: 'emit', params: { event: 'sort-box-item.confirmed' } },
    ]);
  });

  it('a refusal leaves the rebuilt snapshot where it was', () => {
    const snapshot = sortBoxItemMachine.resolveState({ value: 'Confirmed', context: {} });
    const [next, actions] = transition(sortBoxItemMachine, snapshot, { type: 'CANCEL' });
    expect(next.value).toBe('Confirmed');
    expect(actions.map((a) => ({ type: a.type, params: a.params }))).toEqual([
      { type: 'refuse', params: { code: 'item-already-confirmed' } },
    ]);
  });
});
