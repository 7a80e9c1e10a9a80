import { initialTransition, transition, type AnyStateMachine } from 'xstate';
import { decide, INVALID_TRANSITION, REFUSAL_CODES } from '../../machines/decide';
import { SESSION_ABSENT, sessionMachine, type SessionContext, type SessionEvent } from '../../machines/session.machine';
import { slotMachine, type SlotEvent } from '../../machines/slot.machine';
import { SORT_BOX_ITEM_ABSENT, finishedItemCode, sortBoxItemMachine, type SortBoxItemEvent } from '../../machines/sort-box-item.machine';
import { ERROR_CODES } from '../../shared/errors/error-codes';
import { EVENT_TYPES } from '../../shared/events/event-types';

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
    ['Empty', { type: 'DETACH', pendingItems: 0 }, { to: 'Empty' }],
    ['Empty', { type: 'DETACH', pendingItems: 1 }, { refused: 'slot-not-empty' }],
    ['Empty', { type: 'RETARGET' }, { to: 'Empty' }],

    ['Sorting', { type: 'ASSIGN' }, { refused: 'slot-not-empty' }],
    ['Sorting', { type: 'VACATE' }, { to: 'Empty' }],
    ['Sorting', { type: 'COMPLETE' }, { to: 'Complete', emits: ['sort-box.completed'] }],
    ['Sorting', { type: 'RELEASE', force: false }, { refused: 'slot-not-complete' }],
    ['Sorting', { type: 'RELEASE', force: true }, { to: 'Empty', emits: ['sort-box.released'] }],
    ['Sorting', { type: 'DETACH', pendingItems: 0 }, { refused: 'slot-not-empty' }],
    ['Sorting', { type: 'RETARGET' }, { refused: 'slot-not-empty' }],

    ['Complete', { type: 'ASSIGN' }, { refused: 'slot-not-empty' }],
    ['Complete', { type: 'VACATE' }, { refused: INVALID_TRANSITION }],
    ['Complete', { type: 'COMPLETE' }, { refused: INVALID_TRANSITION }],
    ['Complete', { type: 'RELEASE', force: false }, { to: 'Empty', emits: ['sort-box.released'] }],
    ['Complete', { type: 'RELEASE', force: true }, { to: 'Empty', emits: ['sort-box.released'] }],
    ['Complete', { type: 'DETACH', pendingItems: 0 }, { refused: 'slot-not-empty' }],
    ['Complete', { type: 'RETARGET' }, { refused: 'slot-not-empty' }],
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

describe('creating: Absent is the state before the row exists', () => {
  it('a scan creates the item: Absent + SCAN → PendingConfirmation, emits sort-box-item.created', () => {
    expect(decide(sortBoxItemMachine, SORT_BOX_ITEM_ABSENT, {}, { type: 'SCAN' })).toEqual({
      ok: true,
      value: 'PendingConfirmation',
      changed: true,
      context: {},
      emits: ['sort-box-item.created'],
    });
  });

  it('connecting starts the session: Absent + START → Connected, emits session.started', () => {
    expect(decide(sessionMachine, SESSION_ABSENT, { endReason: null }, { type: 'START' })).toEqual({
      ok: true,
      value: 'Connected',
      changed: true,
      context: { endReason: null },
      emits: ['session.started'],
    });
  });

  it.each<SortBoxItemEvent>([{ type: 'CONFIRM', units: 1, remainingUnits: 1 }, { type: 'CANCEL' }, { type: 'SWAP', firstInSlot: true }])(
    'an item not yet created takes nothing else: %j → invalid-transition',
    (event) => {
      expect(decide(sortBoxItemMachine, SORT_BOX_ITEM_ABSENT, {}, event)).toMatchObject({ ok: false, code: INVALID_TRANSITION });
    },
  );

  it.each(['PendingConfirmation', 'Confirmed', 'Cancelled'])('an existing item is not scanned again: %s + SCAN → invalid-transition', (state) => {
    expect(decide(sortBoxItemMachine, state, {}, { type: 'SCAN' })).toMatchObject({ ok: false, code: INVALID_TRANSITION });
  });

  it.each(['Connected', 'Ended'])('an existing session is not started again: %s + START → invalid-transition', (state) => {
    expect(decide(sessionMachine, state, { endReason: null }, { type: 'START' })).toMatchObject({ ok: false, code: INVALID_TRANSITION });
  });

  it('a session not yet started takes no activity', () => {
    expect(decide(sessionMachine, SESSION_ABSENT, { endReason: null }, { type: 'ACTIVITY' })).toMatchObject({ ok: false, code: INVALID_TRANSITION });
  });

  it('the initial states are unchanged: machines start where a created row starts', () => {
    expect(initialTransition(sortBoxItemMachine)[0].value).toBe('PendingConfirmation');
    expect(initialTransition(sessionMachine)[0].value).toBe('Connected');
  });
});

describe('finishedItemCode: the code an item whose slot was detached answers with', () => {
  it.each([
    ['Confirmed', 'item-already-confirmed'],
    ['Cancelled', 'item-already-cancelled'],
  ] as const)('%s → %s, what the machine answers in that state', (state, code) => {
    expect(finishedItemCode(state)).toBe(code);
    expect(decide(sortBoxItemMachine, state, {}, { type: 'CANCEL' })).toEqual({ ok: false, code });
  });
});

describe('every answer of every machine is typed data', () => {
  const machines: Array<[string, AnyStateMachine, object, Array<{ type: string } & Record<string, unknown>>]> = [
    ['sortBoxItem', sortBoxItemMachine, {}, [
      { type: 'SCAN' }, { type: 'CONFIRM', units: 1, remainingUnits: 1 }, { type: 'CONFIRM', units: 2, remainingUnits: 1 },
      { type: 'CANCEL' }, { type: 'SWAP', firstInSlot: true }, { type: 'SWAP', firstInSlot: false },
    ]],
    ['session', sessionMachine, { endReason: null }, [
      { type: 'START' }, { type: 'RENEW' }, { type: 'ACTIVITY' }, { type: 'STOP' }, { type: 'REPLACE' }, { type: 'EXPIRE' }, { type: 'DISCONNECT' },
    ]],
    ['slot', slotMachine, {}, [
      { type: 'ASSIGN' }, { type: 'VACATE' }, { type: 'COMPLETE' }, { type: 'RELEASE', force: false }, { type: 'RELEASE', force: true }, { type: 'DETACH' },
    ]],
  ];
  const cases = machines.flatMap(([name, machine, context, events]) =>
    Object.keys(machine.config.states ?? {}).flatMap((state) => events.map((event) => [name, state, event, machine, context] as const)),
  );

  it('the refusal codes are error codes (docs/api.md §1)', () => {
    for (const code of [...REFUSAL_CODES, INVALID_TRANSITION]) expect(ERROR_CODES).toHaveProperty([code]);
  });

  it.each(cases)('%s %s + %j: refused with a refusal code, or emits only event types', (_name, state, event, machine, context) => {
    const d = decide(machine, state, context, event as never);
    if (d.ok) {
      for (const e of d.emits) expect(EVENT_TYPES).toContain(e);
    } else {
      expect([...REFUSAL_CODES, INVALID_TRANSITION]).toContain(d.code);
    }
  });
});
