import { z } from 'zod';
import { FLOW_DIRECTIONS, listSortBoxDisplays } from '../../../shared/domain/display-layout';
import { defineRoute, type RouteDef } from '../http/route';

// Query values arrive as text; an absent one stays undefined so the answer can say "is required".
const count = (what: string) =>
  z
    .preprocess(
      (v) => (v === undefined || v === '' ? undefined : Number(v)),
      z
        .number({ error: (iss) => (iss.input === undefined ? 'is required' : 'must be an integer') })
        .int()
        .min(1)
        .max(1000),
    )
    .describe(`${what}, 1..1000. Required.`);

const sortBoxDisplayDto = z.object({
  index: z.number().int().describe('1-based slot position.'),
  segment: z.number().int().describe('1-based segment number.'),
  row: z.number().int().describe('1-based row within the segment.'),
  column: z.number().int().describe('1-based column within the segment.'),
  x: z.number().int().describe('0-based column over the whole wall.'),
  y: z.number().int().describe('0-based row over the whole wall.'),
});

export const displaysRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: '/list-sortbox-displays',
    operationId: 'ListSortBoxDisplays',
    summary: 'Where each slot sits on the picture of a wall',
    description:
      'Slots 1..sortBoxes fill segments of segmentRows × segmentColumns cells, numbered in the flow direction: row by row for LeftToRight/RightToLeft, ' +
      'column by column for TopToBottom/BottomToTop. Segments stand side by side, the first one leftmost (rightmost for RightToLeft).',
    tags: ['Walls'],
    access: 'authenticated',
    query: z.object({
      sortBoxes: count('Number of slots'),
      segmentRows: count('Rows per segment'),
      segmentColumns: count('Columns per segment'),
      flowDirection: z.enum(FLOW_DIRECTIONS).describe('Numbering direction (exact spelling).'),
    }),
    response: z.array(sortBoxDisplayDto),
    handler: ({ query }) => listSortBoxDisplays(query),
  }),
];
