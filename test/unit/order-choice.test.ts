import fc from 'fast-check';
import { chooseOrder, compareOrderCandidates, type OrderCandidate } from '../../shared/domain/order-choice';
import { ORDER_PRIORITIES, priorityRank } from '../../shared/domain/priority';

const day = (n: number) => new Date(Date.UTC(2024, 0, 1 + n));

const candidate = (over: Partial<OrderCandidate> & { orderId: number }): OrderCandidate => ({
  priority: 'Normal',
  orderDate: day(0),
  slotId: null,
  remainingUnits: 1,
  ...over,
});

describe('priorityRank', () => {
  it('ranks Low < Normal < High < Critical', () => {
    expect(ORDER_PRIORITIES.map(priorityRank)).toEqual([0, 1, 2, 3]);
  });
});

describe('chooseOrder', () => {
  it('answers null with no candidates', () => {
    expect(chooseOrder([])).toBeNull();
  });

  it('ignores candidates with nothing remaining', () => {
    expect(chooseOrder([candidate({ orderId: 1, remainingUnits: 0 }), candidate({ orderId: 2, remainingUnits: -1 })])).toBeNull();
    const open = candidate({ orderId: 9, remainingUnits: 2, priority: 'Low' });
    expect(chooseOrder([candidate({ orderId: 1, remainingUnits: 0, slotId: 5, priority: 'Critical' }), open])).toBe(open);
  });

  it('1. prefers an order already in a slot of this wall, over priority, date and id', () => {
    const inSlot = candidate({ orderId: 50, slotId: 7, priority: 'Low', orderDate: day(30) });
    const urgent = candidate({ orderId: 1, priority: 'Critical', orderDate: day(0) });
    expect(chooseOrder([urgent, inSlot])).toBe(inSlot);
  });

  it('2. then higher priority, over date and id', () => {
    const high = candidate({ orderId: 50, priority: 'High', orderDate: day(30) });
    const normal = candidate({ orderId: 1, priority: 'Normal', orderDate: day(0) });
    expect(chooseOrder([normal, high])).toBe(high);
  });

  it('3. then older orderDate, over id', () => {
    const older = candidate({ orderId: 50, orderDate: day(1) });
    const newer = candidate({ orderId: 1, orderDate: day(2) });
    expect(chooseOrder([newer, older])).toBe(older);
  });

  it('4. then lower orderId', () => {
    const a = candidate({ orderId: 3 });
    const b = candidate({ orderId: 2 });
    expect(chooseOrder([a, b])).toBe(b);
  });

  it('applies the rules among orders that are all in slots', () => {
    const a = candidate({ orderId: 1, slotId: 1, priority: 'Normal' });
    const b = candidate({ orderId: 2, slotId: 2, priority: 'High' });
    expect(chooseOrder([a, b])).toBe(b);
  });

  it('keeps the caller type', () => {
    const rows = [{ ...candidate({ orderId: 4 }), label: 'x' }];
    expect(chooseOrder(rows)?.label).toBe('x');
  });
});

describe('compareOrderCandidates', () => {
  it('sorts by the four rules', () => {
    const list = [
      candidate({ orderId: 6, priority: 'Low' }),
      candidate({ orderId: 5, priority: 'Normal', orderDate: day(2) }),
      candidate({ orderId: 4, priority: 'Normal', orderDate: day(1) }),
      candidate({ orderId: 3, priority: 'Normal', orderDate: day(1) }),
      candidate({ orderId: 2, priority: 'Critical' }),
      candidate({ orderId: 1, priority: 'Low', slotId: 3 }),
    ];
    expect([...list].sort(compareOrderCandidates).map((c) => c.orderId)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('is 0 only for the same order key', () => {
    expect(compareOrderCandidates(candidate({ orderId: 1 }), candidate({ orderId: 1 }))).toBe(0);
  });
});

describe('chooseOrder properties', () => {
  const candidates = fc.array(
    fc.record({
      orderId: fc.integer({ min: 1, max: 40 }),
      priority: fc.constantFrom(...ORDER_PRIORITIES),
      orderDate: fc.integer({ min: 0, max: 5 }).map(day),
      slotId: fc.option(fc.integer({ min: 1, max: 10 }), { nil: null }),
      remainingUnits: fc.integer({ min: -2, max: 3 }),
    }),
    { maxLength: 25 },
  );

  it('never chooses an order with nothing remaining, and chooses a minimum of the comparator', () => {
    fc.assert(
      fc.property(candidates, (list) => {
        const chosen = chooseOrder(list);
        const open = list.filter((c) => c.remainingUnits > 0);
        if (open.length === 0) {
          expect(chosen).toBeNull();
          return;
        }
        expect(chosen).not.toBeNull();
        expect(chosen!.remainingUnits).toBeGreaterThan(0);
        expect(list).toContain(chosen);
        for (const other of open) expect(compareOrderCandidates(chosen!, other)).toBeLessThanOrEqual(0);
      }),
    );
  });

  it('does not depend on the input order', () => {
    const withShuffle = candidates.chain((list) =>
      fc.tuple(fc.constant(list), fc.shuffledSubarray(list, { minLength: list.length, maxLength: list.length })),
    );
    fc.assert(
      fc.property(withShuffle, ([list, shuffled]) => {
        const a = chooseOrder(list);
        const b = chooseOrder(shuffled);
        if (a === null) expect(b).toBeNull();
        else expect(compareOrderCandidates(a, b!)).toBe(0);
      }),
    );
  });

  it('comparator is antisymmetric and transitive', () => {
    const one = candidates.filter((l) => l.length >= 3);
    fc.assert(
      fc.property(one, ([a, b, c]) => {
        expect(Math.sign(compareOrderCandidates(a!, b!))).toBe(-Math.sign(compareOrderCandidates(b!, a!)) || 0);
        if (compareOrderCandidates(a!, b!) <= 0 && compareOrderCandidates(b!, c!) <= 0) {
          expect(compareOrderCandidates(a!, c!)).toBeLessThanOrEqual(0);
        }
      }),
    );
  });
});
