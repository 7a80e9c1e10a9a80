import fc from 'fast-check';
import { SORTER_COLORS } from '../../shared/domain/colors';
import {
  COMPLETE_COLOR,
  DIGITS_WIDTH,
  FLASH_MS,
  OFF,
  TEST_STEP_MS,
  nextChangeAt,
  renderWall,
  sameLight,
  type PendingState,
  type SlotState,
  type WallState,
} from '../../shared/lights/light-model';

const slot = (position: number, status: SlotState['status'] = 'Empty'): SlotState => ({
  serialNumber: `0x${position.toString(16).padStart(8, '0')}`,
  crc: `C${String(position).padStart(7, '0')}`,
  position,
  status,
});
const pending = (id: number, s: SlotState, color: PendingState['color'], createdAt = id * 1000, units = 1): PendingState => ({ id, crc: s.crc, color, units, createdAt });
const wall = (slots: SlotState[], items: PendingState[] = [], mode: WallState['mode'] = null): WallState => ({ clientId: 1, wallId: 1, slots, pending: items, mode });
const NOW = 1_000_000;

describe('light model', () => {
  const [s1, s2, s3, s4] = [slot(1), slot(2, 'Sorting'), slot(3, 'Sorting'), slot(4, 'Complete')];

  it("lights a pending slot's front in its sorter's color with the units to put, and only that", () => {
    const lights = renderWall(wall([s1, s2, s3, s4], [pending(1, s2, 'Red')]), [], NOW);
    expect(lights.map((l) => l.position)).toEqual([1, 2, 3, 4]);
    expect(lights[1]!.front).toEqual({ on: true, colors: ['Red'], blink: 'steady', digits: '1' });
    // Sorting with nothing pending, and Empty: dark on both sides.
    for (const l of [lights[0]!, lights[2]!]) expect([l.front, l.back]).toEqual([OFF, OFF]);
    expect(lights[1]!.back).toEqual(OFF);
  });

  it('shows two sorters waiting in one slot: both colors in turn, oldest first, their units added', () => {
    const [front] = renderWall(wall([s2], [pending(7, s2, 'Blue', 2000), pending(3, s2, 'Green', 1000, 2)]), [], NOW).map((l) => l.front);
    expect(front).toEqual({ on: true, colors: ['Green', 'Blue'], blink: 'alternate', digits: '3' });
    // The same sorter twice is one color.
    const [same] = renderWall(wall([s2], [pending(1, s2, 'Red'), pending(2, s2, 'Red')]), [], NOW).map((l) => l.front);
    expect(same).toEqual({ on: true, colors: ['Red'], blink: 'steady', digits: '2' });
  });

  it("lights a Complete slot's back (the shipper's cue) and leaves its front dark", () => {
    const [l] = renderWall(wall([s4]), [], NOW);
    expect(l!.back).toEqual({ on: true, colors: [COMPLETE_COLOR], blink: 'steady', digits: '' });
    expect(l!.front).toEqual(OFF);
  });

  it('a flash in progress overrides the front (fast blink) and ends by itself', () => {
    const state = wall([s2, s3], [pending(1, s2, 'Blue')]);
    const flashes = [
      { crc: s2.crc, color: 'Blue' as const, until: NOW + FLASH_MS },
      { crc: s3.crc, color: 'Red' as const, until: NOW + FLASH_MS },
    ];
    const during = renderWall(state, flashes, NOW);
    expect(during.map((l) => l.front)).toEqual([
      { on: true, colors: ['Blue'], blink: 'fast', digits: '' },
      { on: true, colors: ['Red'], blink: 'fast', digits: '' },
    ]);
    expect(nextChangeAt(state, flashes, NOW)).toBe(NOW + FLASH_MS);
    const after = renderWall(state, flashes, NOW + FLASH_MS);
    expect(after.map((l) => l.front)).toEqual([{ on: true, colors: ['Blue'], blink: 'steady', digits: '1' }, OFF]);
    expect(nextChangeAt(state, flashes, NOW + FLASH_MS)).toBeNull();
  });

  it('the light test steps every light through red, green, blue and white, digits all lit, until it ends', () => {
    const state = wall([s1, s4], [pending(1, s1, 'Cyan')], { mode: 'test', startedAt: NOW, until: NOW + 10 * TEST_STEP_MS });
    const colorAt = (t: number) => renderWall(state, [], t).map((l) => [l.front.colors[0], l.back.colors[0]]);
    expect(colorAt(NOW)).toEqual([['Red', 'Red'], ['Red', 'Red']]);
    expect(colorAt(NOW + TEST_STEP_MS)).toEqual([['Green', 'Green'], ['Green', 'Green']]);
    expect(colorAt(NOW + 3 * TEST_STEP_MS + 10)).toEqual([['White', 'White'], ['White', 'White']]);
    expect(renderWall(state, [], NOW)[0]!.front.digits).toBe('8'.repeat(DIGITS_WIDTH));
    expect(nextChangeAt(state, [], NOW + 10)).toBe(NOW + TEST_STEP_MS);
    // Over: the wall's real state again.
    const after = renderWall(state, [], NOW + 10 * TEST_STEP_MS);
    expect(after[0]!.front).toEqual({ on: true, colors: ['Cyan'], blink: 'steady', digits: '1' });
    expect(after[1]!.back.colors).toEqual([COMPLETE_COLOR]);
  });

  it('show-address: every light white with the slot position on the digits', () => {
    const state = wall([slot(1), slot(12), slot(345)], [], { mode: 'show-address', startedAt: NOW, until: NOW + 60_000 });
    expect(renderWall(state, [], NOW).map((l) => [l.front.digits, l.back.digits, l.front.colors])).toEqual([
      ['1', '1', ['White']],
      ['12', '12', ['White']],
      ['345', '345', ['White']],
    ]);
    expect(nextChangeAt(state, [], NOW)).toBe(NOW + 60_000);
    // A button test: the pressed slot flashes meanwhile.
    const tested = renderWall(state, [{ crc: slot(12).crc, color: 'White', until: NOW + FLASH_MS }], NOW);
    expect(tested[1]!.front).toEqual({ on: true, colors: ['White'], blink: 'fast', digits: '' });
    expect(tested[0]!.front.blink).toBe('steady');
  });

  it('property: in normal mode a front is lit exactly when its slot has pending scans, in their colors, with their units; a back exactly when Complete', () => {
    const arbSlots = fc.uniqueArray(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 12 }).chain((positions) =>
      fc.tuple(
        fc.constant(positions),
        fc.array(fc.constantFrom<SlotState['status']>('Empty', 'Sorting', 'Complete'), { minLength: positions.length, maxLength: positions.length }),
      ),
    );
    fc.assert(
      fc.property(
        arbSlots,
        fc.array(fc.record({ slot: fc.nat(), color: fc.constantFrom(...SORTER_COLORS), units: fc.integer({ min: 1, max: 3 }), at: fc.nat(1000) }), { maxLength: 20 }),
        ([positions, statuses], raw) => {
          const slots = positions.map((p, i) => slot(p, statuses[i]));
          const items = raw.map((r, i) => pending(i + 1, slots[r.slot % slots.length]!, r.color, r.at, r.units));
          const lights = renderWall(wall(slots, items), [], NOW);
          for (const l of lights) {
            const mine = items.filter((p) => p.crc === l.crc).sort((a, b) => a.createdAt - b.createdAt || a.id - b.id);
            expect(l.front.on).toBe(mine.length > 0);
            expect(l.front.colors).toEqual([...new Set(mine.map((p) => p.color))]);
            expect(l.front.digits).toBe(mine.length ? String(mine.reduce((n, p) => n + p.units, 0)) : '');
            expect(l.back.on).toBe(slots.find((s) => s.crc === l.crc)!.status === 'Complete');
          }
        },
      ),
    );
  });

  it('property: the lights of some slots alone (only) are exactly those slots of the whole picture, in every mode, with flashes', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 1, max: 30 }), { minLength: 1, maxLength: 10 }),
        fc.array(fc.record({ slot: fc.nat(), color: fc.constantFrom(...SORTER_COLORS), units: fc.integer({ min: 1, max: 3 }), at: fc.nat(1000) }), { maxLength: 12 }),
        fc.array(fc.record({ slot: fc.nat(), color: fc.constantFrom('Red' as const, 'White' as const), until: fc.integer({ min: NOW - 100, max: NOW + 100 }), item: fc.option(fc.nat(14)) }), { maxLength: 5 }),
        fc.constantFrom<WallState['mode']>(null, { mode: 'test', startedAt: NOW - 1500, until: NOW + 10 }, { mode: 'show-address', startedAt: NOW - 10, until: NOW + 10 }, { mode: 'test', startedAt: NOW - 20, until: NOW - 10 }),
        fc.array(fc.nat(), { maxLength: 4 }),
        (positions, raw, rawFlashes, mode, picks) => {
          const slots = positions.map((p, i) => slot(p, (['Empty', 'Sorting', 'Complete'] as const)[i % 3]));
          const items = raw.map((r, i) => pending(i + 1, slots[r.slot % slots.length]!, r.color, r.at, r.units));
          const flashes = rawFlashes.map((f) => ({ crc: slots[f.slot % slots.length]!.crc, color: f.color, until: f.until, ...(f.item === null ? {} : { itemId: f.item }) }));
          const only = new Set(picks.map((i) => slots[i % slots.length]!.crc));
          const state = wall(slots, items, mode);
          expect(renderWall(state, flashes, NOW, only)).toEqual(renderWall(state, flashes, NOW).filter((l) => only.has(l.crc)));
        },
      ),
    );
  });

  it('sameLight compares every field', () => {
    const a = { on: true, colors: ['Red' as const], blink: 'steady' as const, digits: '1' };
    expect(sameLight(a, { ...a })).toBe(true);
    expect(sameLight(a, { ...a, digits: '2' })).toBe(false);
    expect(sameLight(a, { ...a, colors: ['Red', 'Blue'] })).toBe(false);
    expect(sameLight(a, { ...a, blink: 'fast' })).toBe(false);
  });
});

describe('light model: a flash in a pending item’s color', () => {
  it('takes the color of the item while it is pending, its own color otherwise', () => {
    const s = slot(2, 'Sorting');
    const flashes = [{ crc: s.crc, color: 'White' as const, until: NOW + 10, itemId: 5 }];
    expect(renderWall(wall([s], [pending(5, s, 'Magenta')]), flashes, NOW)[0]!.front.colors).toEqual(['Magenta']);
    expect(renderWall(wall([s]), flashes, NOW)[0]!.front.colors).toEqual(['White']);
  });
});
