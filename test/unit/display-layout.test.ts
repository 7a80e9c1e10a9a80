import fc from 'fast-check';
import {
  FLOW_DIRECTIONS,
  listSortBoxDisplays,
  type FlowDirection,
  type SortBoxDisplay,
} from '../../shared/domain/display-layout';

const pick = (displays: SortBoxDisplay[]) => displays.map(({ index, segment, row, column, x, y }) => [index, segment, row, column, x, y]);

describe('listSortBoxDisplays examples', () => {
  it('LeftToRight fills row by row, segments left to right', () => {
    // 2 × 3 segments, 8 slots: segment 2 is partial.
    const displays = listSortBoxDisplays({ sortBoxes: 8, segmentRows: 2, segmentColumns: 3, flowDirection: 'LeftToRight' });
    expect(pick(displays)).toEqual([
      // index, segment, row, column, x, y
      [1, 1, 1, 1, 0, 0],
      [2, 1, 1, 2, 1, 0],
      [3, 1, 1, 3, 2, 0],
      [4, 1, 2, 1, 0, 1],
      [5, 1, 2, 2, 1, 1],
      [6, 1, 2, 3, 2, 1],
      [7, 2, 1, 1, 3, 0],
      [8, 2, 1, 2, 4, 0],
    ]);
  });

  it('RightToLeft fills row by row from the right, segment 1 rightmost', () => {
    const displays = listSortBoxDisplays({ sortBoxes: 8, segmentRows: 2, segmentColumns: 3, flowDirection: 'RightToLeft' });
    expect(pick(displays)).toEqual([
      [1, 1, 1, 3, 5, 0],
      [2, 1, 1, 2, 4, 0],
      [3, 1, 1, 1, 3, 0],
      [4, 1, 2, 3, 5, 1],
      [5, 1, 2, 2, 4, 1],
      [6, 1, 2, 1, 3, 1],
      [7, 2, 1, 3, 2, 0],
      [8, 2, 1, 2, 1, 0],
    ]);
  });

  it('TopToBottom fills column by column, top down', () => {
    const displays = listSortBoxDisplays({ sortBoxes: 7, segmentRows: 2, segmentColumns: 2, flowDirection: 'TopToBottom' });
    expect(pick(displays)).toEqual([
      [1, 1, 1, 1, 0, 0],
      [2, 1, 2, 1, 0, 1],
      [3, 1, 1, 2, 1, 0],
      [4, 1, 2, 2, 1, 1],
      [5, 2, 1, 1, 2, 0],
      [6, 2, 2, 1, 2, 1],
      [7, 2, 1, 2, 3, 0],
    ]);
  });

  it('BottomToTop fills column by column, bottom up', () => {
    const displays = listSortBoxDisplays({ sortBoxes: 5, segmentRows: 3, segmentColumns: 1, flowDirection: 'BottomToTop' });
    expect(pick(displays)).toEqual([
      [1, 1, 3, 1, 0, 2],
      [2, 1, 2, 1, 0, 1],
      [3, 1, 1, 1, 0, 0],
      [4, 2, 3, 1, 1, 2],
      [5, 2, 2, 1, 1, 1],
    ]);
  });

  it('answers nothing for no slots', () => {
    expect(listSortBoxDisplays({ sortBoxes: 0, segmentRows: 4, segmentColumns: 6, flowDirection: 'LeftToRight' })).toEqual([]);
  });

  it.each([
    { sortBoxes: -1, segmentRows: 1, segmentColumns: 1 },
    { sortBoxes: 1.5, segmentRows: 1, segmentColumns: 1 },
    { sortBoxes: 4, segmentRows: 0, segmentColumns: 1 },
    { sortBoxes: 4, segmentRows: 1, segmentColumns: 0 },
    { sortBoxes: 4, segmentRows: Number.NaN, segmentColumns: 1 },
  ])('throws RangeError on %j', (sizes) => {
    expect(() => listSortBoxDisplays({ ...sizes, flowDirection: 'LeftToRight' })).toThrow(RangeError);
  });

  it.each(['Diagonal', 'constructor'])('throws RangeError on the flow direction %j', (flowDirection) => {
    expect(() => listSortBoxDisplays({ sortBoxes: 4, segmentRows: 2, segmentColumns: 2, flowDirection: flowDirection as FlowDirection })).toThrow(RangeError);
  });
});

describe('listSortBoxDisplays properties', () => {
  const layouts = fc.record({
    sortBoxes: fc.integer({ min: 0, max: 300 }),
    segmentRows: fc.integer({ min: 1, max: 12 }),
    segmentColumns: fc.integer({ min: 1, max: 12 }),
    flowDirection: fc.constantFrom<FlowDirection>(...FLOW_DIRECTIONS),
  });

  it('lists every index once, in order, inside its segment and the wall', () => {
    fc.assert(
      fc.property(layouts, (layout) => {
        const { sortBoxes, segmentRows: R, segmentColumns: C } = layout;
        const displays = listSortBoxDisplays(layout);
        const segments = Math.ceil(sortBoxes / (R * C));
        expect(displays.map((d) => d.index)).toEqual(Array.from({ length: sortBoxes }, (_, i) => i + 1));
        for (const d of displays) {
          expect(d.segment).toBe(Math.floor((d.index - 1) / (R * C)) + 1);
          expect(d.row).toBeGreaterThanOrEqual(1);
          expect(d.row).toBeLessThanOrEqual(R);
          expect(d.column).toBeGreaterThanOrEqual(1);
          expect(d.column).toBeLessThanOrEqual(C);
          expect(d.x).toBeGreaterThanOrEqual(0);
          expect(d.x).toBeLessThan(segments * C);
          expect(d.y).toBe(d.row - 1);
          // x falls inside the segment's own band of columns, at its column.
          expect(d.x % C).toBe(d.column - 1);
        }
      }),
    );
  });

  it('never puts two slots on one cell', () => {
    fc.assert(
      fc.property(layouts, (layout) => {
        const displays = listSortBoxDisplays(layout);
        const cells = new Set(displays.map((d) => `${d.x},${d.y}`));
        expect(cells.size).toBe(displays.length);
      }),
    );
  });

  it('puts consecutive indexes of a segment next to each other in the flow direction', () => {
    fc.assert(
      fc.property(layouts, (layout) => {
        const { segmentRows: R, segmentColumns: C, flowDirection } = layout;
        const displays = listSortBoxDisplays(layout);
        for (let i = 0; i + 1 < displays.length; i++) {
          const a = displays[i]!;
          const b = displays[i + 1]!;
          if (a.segment !== b.segment) continue;
          const k = (a.index - 1) % (R * C);
          switch (flowDirection) {
            case 'LeftToRight':
              if ((k + 1) % C !== 0) expect([b.x - a.x, b.y - a.y]).toEqual([1, 0]);
              else expect([b.column, b.y - a.y, a.column]).toEqual([1, 1, C]);
              break;
            case 'RightToLeft':
              if ((k + 1) % C !== 0) expect([b.x - a.x, b.y - a.y]).toEqual([-1, 0]);
              else expect([b.column, b.y - a.y, a.column]).toEqual([C, 1, 1]);
              break;
            case 'TopToBottom':
              if ((k + 1) % R !== 0) expect([b.x - a.x, b.y - a.y]).toEqual([0, 1]);
              else expect([b.x - a.x, b.row, a.row]).toEqual([1, 1, R]);
              break;
            case 'BottomToTop':
              if ((k + 1) % R !== 0) expect([b.x - a.x, b.y - a.y]).toEqual([0, -1]);
              else expect([b.x - a.x, b.row, a.row]).toEqual([1, R, 1]);
              break;
          }
        }
      }),
    );
  });

  it('places segment s+1 beside segment s: right of it, or left of it for RightToLeft', () => {
    fc.assert(
      fc.property(layouts, (layout) => {
        const C = layout.segmentColumns;
        const displays = listSortBoxDisplays(layout);
        const segments = Math.ceil(layout.sortBoxes / (layout.segmentRows * C));
        for (const d of displays) {
          const band = Math.floor(d.x / C);
          expect(band).toBe(layout.flowDirection === 'RightToLeft' ? segments - d.segment : d.segment - 1);
        }
      }),
    );
  });
});
