/*
 * Where each slot sits on the hub's picture of the wall (GET /list-sortbox-displays).
 *
 * - Slots are numbered 1..sortBoxes (`index`, the slot's position on the wall).
 * - The wall is cut into segments of R × C cells (R = segmentRows, C = segmentColumns).
 *   Segment s (1-based) holds indexes (s-1)·R·C+1 .. s·R·C; the last segment may be partial.
 * - Within a segment, cell number k = (index-1) mod R·C is placed in the flow direction:
 *     LeftToRight  row = ⌊k/C⌋, col = k mod C          (row by row, left to right)
 *     RightToLeft  row = ⌊k/C⌋, col = C-1 - (k mod C)  (row by row, right to left)
 *     TopToBottom  col = ⌊k/R⌋, row = k mod R          (column by column, top down)
 *     BottomToTop  col = ⌊k/R⌋, row = R-1 - (k mod R)  (column by column, bottom up)
 *   The output `row` and `column` are these plus one (1-based within the segment).
 * - Segments stand side by side horizontally: segment 1 is leftmost, except for RightToLeft where
 *   segment 1 is rightmost, so the numbering keeps running the way the sorter reads the wall.
 * - x = segmentOffset·C + col and y = row are 0-based cells of the whole wall
 *   (segmentOffset = 0 for the leftmost segment).
 */

export const FLOW_DIRECTIONS = ['LeftToRight', 'RightToLeft', 'TopToBottom', 'BottomToTop'] as const;

export type FlowDirection = (typeof FLOW_DIRECTIONS)[number];

export interface SortBoxDisplayLayout {
  sortBoxes: number;
  segmentRows: number;
  segmentColumns: number;
  flowDirection: FlowDirection;
}

export interface SortBoxDisplay {
  /** 1-based slot position. */
  index: number;
  /** 1-based segment number. */
  segment: number;
  /** 1-based within the segment. */
  row: number;
  /** 1-based within the segment. */
  column: number;
  /** 0-based cell over the whole wall. */
  x: number;
  /** 0-based cell over the whole wall. */
  y: number;
}

/** How each direction fills a segment: row by row (else column by column), and from the far end (the right, the bottom). */
const FLOWS: Record<FlowDirection, { byRow: boolean; fromEnd: boolean }> = {
  LeftToRight: { byRow: true, fromEnd: false },
  RightToLeft: { byRow: true, fromEnd: true },
  TopToBottom: { byRow: false, fromEnd: false },
  BottomToTop: { byRow: false, fromEnd: true },
};

function assertCount(name: string, value: number, min: number): void {
  if (!Number.isInteger(value) || value < min) {
    throw new RangeError(`${name} must be an integer >= ${min}, got ${value}`);
  }
}

/** One display cell per slot, sorted by index. Throws RangeError on non-integer or too small sizes. */
export function listSortBoxDisplays(layout: SortBoxDisplayLayout): SortBoxDisplay[] {
  const { sortBoxes, segmentRows: R, segmentColumns: C, flowDirection } = layout;
  assertCount('sortBoxes', sortBoxes, 0);
  assertCount('segmentRows', R, 1);
  assertCount('segmentColumns', C, 1);
  if (!FLOW_DIRECTIONS.includes(flowDirection)) throw new RangeError(`unknown flowDirection ${String(flowDirection)}`);

  const { byRow, fromEnd } = FLOWS[flowDirection];
  const perSegment = R * C;
  const segments = Math.ceil(sortBoxes / perSegment);
  const displays: SortBoxDisplay[] = [];

  for (let index = 1; index <= sortBoxes; index++) {
    const segment = Math.floor((index - 1) / perSegment) + 1;
    const k = (index - 1) % perSegment;
    const line = byRow ? C : R; // cells in a row (row by row) or in a column
    const across = Math.floor(k / line);
    const along = fromEnd ? line - 1 - (k % line) : k % line;
    const [row, col] = byRow ? [across, along] : [along, across];
    const segmentOffset = flowDirection === 'RightToLeft' ? segments - segment : segment - 1;
    displays.push({ index, segment, row: row + 1, column: col + 1, x: segmentOffset * C + col, y: row });
  }
  return displays;
}
