import request from 'supertest';
import { listSortBoxDisplays } from '../../shared/domain/display-layout';
import { newTenant, useTestApi, type Tenant } from '../support/test-api';

describe('GET /list-sortbox-displays', () => {
  const api = useTestApi();
  let t: Tenant;
  beforeAll(async () => {
    t = await newTenant(api);
  });

  const list = (query: Record<string, string | number>) =>
    request(api.app).get('/api/v1/list-sortbox-displays').query(query).set('Authorization', t.auth);

  it('places slots row by row in segments, left to right', async () => {
    const res = await list({ sortBoxes: 5, segmentRows: 2, segmentColumns: 2, flowDirection: 'LeftToRight' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      { index: 1, segment: 1, row: 1, column: 1, x: 0, y: 0 },
      { index: 2, segment: 1, row: 1, column: 2, x: 1, y: 0 },
      { index: 3, segment: 1, row: 2, column: 1, x: 0, y: 1 },
      { index: 4, segment: 1, row: 2, column: 2, x: 1, y: 1 },
      { index: 5, segment: 2, row: 1, column: 1, x: 2, y: 0 },
    ]);
  });

  it('numbers right to left with the first segment rightmost, and column by column for the vertical flows', async () => {
    const rtl = await list({ sortBoxes: 3, segmentRows: 1, segmentColumns: 2, flowDirection: 'RightToLeft' });
    expect(rtl.status).toBe(200);
    expect(rtl.body.map((d: { index: number; x: number; y: number }) => [d.index, d.x, d.y])).toEqual([
      [1, 3, 0],
      [2, 2, 0],
      [3, 1, 0],
    ]);
    const btt = await list({ sortBoxes: 3, segmentRows: 2, segmentColumns: 2, flowDirection: 'BottomToTop' });
    expect(btt.body.map((d: { row: number; column: number }) => [d.row, d.column])).toEqual([
      [2, 1],
      [1, 1],
      [2, 2],
    ]);
    const query = { sortBoxes: 1000, segmentRows: 7, segmentColumns: 3, flowDirection: 'TopToBottom' as const };
    const big = await list(query);
    expect(big.status).toBe(200);
    expect(big.body).toEqual(listSortBoxDisplays(query));
  });

  it.each([
    [{ sortBoxes: 0, segmentRows: 2, segmentColumns: 2, flowDirection: 'LeftToRight' }, 'sortBoxes'],
    [{ sortBoxes: 1001, segmentRows: 2, segmentColumns: 2, flowDirection: 'LeftToRight' }, 'sortBoxes'],
    [{ sortBoxes: 2.5, segmentRows: 2, segmentColumns: 2, flowDirection: 'LeftToRight' }, 'sortBoxes'],
    [{ sortBoxes: 'ten', segmentRows: 2, segmentColumns: 2, flowDirection: 'LeftToRight' }, 'sortBoxes'],
    [{ sortBoxes: 4, segmentRows: 0, segmentColumns: 2, flowDirection: 'LeftToRight' }, 'segmentRows'],
    [{ sortBoxes: 4, segmentRows: 2, segmentColumns: 1001, flowDirection: 'LeftToRight' }, 'segmentColumns'],
    [{ sortBoxes: 4, segmentRows: 2, segmentColumns: 2, flowDirection: 'Diagonal' }, 'flowDirection'],
    [{ sortBoxes: 4, segmentRows: 2, segmentColumns: 2 }, 'flowDirection'],
    [{ segmentRows: 2, segmentColumns: 2, flowDirection: 'LeftToRight' }, 'sortBoxes'],
  ])('answers 400 validation-failed for %j', async (query, field) => {
    const res = await list(query);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation-failed');
    expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(field);
  });

  it('says a missing parameter is required', async () => {
    const res = await list({ segmentRows: 2, segmentColumns: 2, flowDirection: 'LeftToRight' });
    expect(res.body.errors).toEqual([expect.objectContaining({ path: 'sortBoxes', message: 'is required' })]);
  });

  it('answers 401 without a token', async () => {
    const res = await request(api.app).get('/api/v1/list-sortbox-displays?sortBoxes=1&segmentRows=1&segmentColumns=1&flowDirection=LeftToRight');
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('unauthorized');
  });
});
