import { seededRandom } from '../../shared/domain/prng';

describe('seededRandom', () => {
  it('gives the same sequence for the same seed (mulberry32), in [0, 1)', () => {
    const a = seededRandom(1);
    expect([a(), a(), a()]).toEqual([0.6270739405881613, 0.002735721180215478, 0.5274470399599522]);
    const b = seededRandom(20261122);
    const c = seededRandom(20261122);
    const xs = Array.from({ length: 1000 }, () => b());
    expect(Array.from({ length: 1000 }, () => c())).toEqual(xs);
    expect(xs.every((x) => x >= 0 && x < 1)).toBe(true);
    expect(seededRandom(2)()).not.toBe(seededRandom(1)());
  });
});
