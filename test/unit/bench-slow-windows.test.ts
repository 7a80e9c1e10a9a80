import { slowWindows, slowWindowsText } from '../../bench/bad-day';

/** Where an open step's slow answers were (bench/bad-day.ts): a stall shows as a window holding many. */
describe("the bench's slow answers by when they were sent", () => {
  const from = 1_000;
  // 100 answers sent 10 ms apart, 5 ms each, but for a stall of six answers sent 420–470 ms into the step;
  // then two slow ones far apart (one sent before the step's clock started: counted in its first window)
  // and one at the bound, which is not over it.
  const answers = Array.from({ length: 100 }, (_, i) => ({ at: from + i * 10, ms: i >= 42 && i <= 47 ? 60 : 5 }));
  answers.push({ at: from + 905, ms: 30 }, { at: from - 3, ms: 26 }, { at: from + 950, ms: 25 });

  it('counts the answers over the bound and names the windows holding the most, the fullest first', () => {
    const w = slowWindows(answers, from);
    expect(w).toEqual({
      overMs: 25,
      over: 8,
      of: 103,
      windows: [
        { atS: 0.4, n: 6 },
        { atS: 0, n: 1 },
        { atS: 0.9, n: 1 },
      ],
    });
    expect(slowWindowsText(w)).toBe('8 of 103 commands answered over 25 ms; the 100-ms windows with the most: 6 sent at 0.4 s, 1 sent at 0 s, 1 sent at 0.9 s');
  });

  it('says only the count when nothing was slow', () => {
    const w = slowWindows(answers, from, 100);
    expect(w).toEqual({ overMs: 100, over: 0, of: 103, windows: [] });
    expect(slowWindowsText(w)).toBe('0 of 103 commands answered over 100 ms');
  });
});
