import fc from 'fast-check';
import { chooseSlot, type SlotCandidate } from '../../shared/domain/slot-choice';
import type { SlotStatus } from '../../shared/domain/statuses';

const slot = (id: number, position: number, status: SlotStatus = 'Empty'): SlotCandidate => ({ id, position, status });

describe('chooseSlot', () => {
  it("answers the order's own slot whatever its status or position", () => {
    const own = slot(3, 9, 'Sorting');
    expect(chooseSlot(3, [slot(1, 1), slot(2, 2), own])).toBe(own);
    const complete = slot(4, 1, 'Complete');
    expect(chooseSlot(4, [slot(1, 0), complete])).toBe(complete);
  });

  it("answers null when the order's slot is not among the slots, rather than a second slot", () => {
    expect(chooseSlot(99, [slot(1, 1), slot(2, 2)])).toBeNull();
  });

  it('answers the Empty slot with the lowest position for an order without one', () => {
    const slots = [slot(1, 3), slot(2, 1, 'Sorting'), slot(3, 2), slot(4, 0, 'Complete'), slot(5, 5)];
    expect(chooseSlot(null, slots)).toBe(slots[2]);
  });

  it('breaks a position tie by lower id', () => {
    const a = slot(8, 1);
    const b = slot(6, 1);
    expect(chooseSlot(null, [a, b])).toBe(b);
  });

  it('answers null when no slot is Empty', () => {
    expect(chooseSlot(null, [])).toBeNull();
    expect(chooseSlot(null, [slot(1, 1, 'Sorting'), slot(2, 2, 'Complete')])).toBeNull();
  });

  it('keeps the caller type', () => {
    const rows = [{ ...slot(1, 1), crc: 'CBF43926' }];
    expect(chooseSlot(null, rows)?.crc).toBe('CBF43926');
  });
});

describe('chooseSlot properties', () => {
  const slots = fc.uniqueArray(
    fc.record({
      id: fc.integer({ min: 1, max: 50 }),
      position: fc.integer({ min: 1, max: 20 }),
      status: fc.constantFrom<SlotStatus>('Empty', 'Sorting', 'Complete'),
    }),
    { selector: (s) => s.id, maxLength: 20 },
  );

  it('without an order slot: an Empty slot of minimal position, or null when none is Empty', () => {
    fc.assert(
      fc.property(slots, (list) => {
        const chosen = chooseSlot(null, list);
        const empty = list.filter((s) => s.status === 'Empty');
        if (empty.length === 0) {
          expect(chosen).toBeNull();
          return;
        }
        expect(chosen!.status).toBe('Empty');
        expect(chosen!.position).toBe(Math.min(...empty.map((s) => s.position)));
      }),
    );
  });

  it("with an order slot: exactly that slot, or null when it is absent", () => {
    fc.assert(
      fc.property(slots, fc.integer({ min: 1, max: 50 }), (list, orderSlotId) => {
        const chosen = chooseSlot(orderSlotId, list);
        expect(chosen).toBe(list.find((s) => s.id === orderSlotId) ?? null);
      }),
    );
  });
});
