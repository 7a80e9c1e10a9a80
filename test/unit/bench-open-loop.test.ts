import { interleavedByWall, type Actor } from '../../bench/realistic-load';

/** The open loop's order of arrivals (bench/realistic-load.ts): a floor's walls scan side by side. */
describe("the bench's open loop", () => {
  it('takes the sorters wall after wall, not a wall’s sorters one after the other', () => {
    const actor = (wallIndex: number, n: number): Actor => ({ auth: `w${wallIndex}s${n}`, wallIndex });
    // Signed in wall by wall, as the bench does; the third wall has one sorter fewer.
    const sorters = [actor(0, 0), actor(0, 1), actor(0, 2), actor(1, 0), actor(1, 1), actor(1, 2), actor(2, 0), actor(2, 1)];
    expect(interleavedByWall(sorters).map((a) => a.auth)).toEqual(['w0s0', 'w1s0', 'w2s0', 'w0s1', 'w1s1', 'w2s1', 'w0s2', 'w1s2']);
    expect(interleavedByWall([])).toEqual([]);
  });
});
