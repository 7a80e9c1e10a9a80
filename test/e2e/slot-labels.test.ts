import request from 'supertest';
import { addSlots, addWall } from '../support/fixtures';
import { decodePdfPages, pdfText } from '../support/pdf-barcodes';
import { newTenant, signedInEmployee, useTestApi } from '../support/test-api';

/** Reads a binary answer into a Buffer. */
const binary = (res: request.Response, cb: (err: Error | null, body: Buffer) => void) => {
  const chunks: Buffer[] = [];
  res.on('data', (c: Buffer) => chunks.push(c));
  res.on('end', () => cb(null, Buffer.concat(chunks)));
};

describe('GET /walls/{id}/slot-labels.pdf', () => {
  const api = useTestApi();
  jest.setTimeout(60_000);

  it("prints each slot's A- and B- barcodes with its number and crc, eight labels to a page, decodable", async () => {
    const t = await newTenant(api);
    const em = api.runtime.orm.em.fork();
    const wall = await addWall(em, t.clientId, { name: 'Jackson St' });
    const slots = await addSlots(em, t.clientId, wall.id, 10);
    const manager = await signedInEmployee(api, t, { roles: ['Manager'] });
    const res = await request(api.app).get(`/api/v1/walls/${wall.id}/slot-labels.pdf`).set('Authorization', manager.auth).buffer(true).parse(binary);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    const pdf = res.body as Buffer;
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    // US Letter.
    expect(pdf.toString('latin1')).toMatch(/\/MediaBox \[0 0 612 792\]/);
    const pages = decodePdfPages(pdf);
    expect(pages).toHaveLength(2);
    const codes = (n: number) => slots.slice(n, n + 8).flatMap((s) => [`A-${s.crc}`, `B-${s.crc}`]).sort();
    expect([...pages[0]!].sort()).toEqual(codes(0));
    expect([...pages[1]!].sort()).toEqual(codes(8));
    const text = pdfText(pdf);
    for (const s of slots) {
      expect(text).toContain(`SLOT ${s.position}`);
      expect(text).toContain(`A-${s.crc}`);
      expect(text).toContain(`B-${s.crc}`);
    }
    expect(text).toContain('Jackson St');
  });

  it('is for Managers and Admins: a Sorter is refused, and another client\'s or an unknown wall is 404', async () => {
    const t = await newTenant(api);
    const other = await newTenant(api, 'Other');
    const em = api.runtime.orm.em.fork();
    const wall = await addWall(em, t.clientId, { name: 'W' });
    await addSlots(em, t.clientId, wall.id, 1);
    const sorter = await signedInEmployee(api, t, { roles: ['Sorter'] });
    const get = (auth: string | null, id = wall.id) => {
      const r = request(api.app).get(`/api/v1/walls/${id}/slot-labels.pdf`);
      return auth ? r.set('Authorization', auth) : r;
    };
    const refused = await get(sorter.auth);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('forbidden');
    expect((await get(null)).status).toBe(401);
    const foreign = await get(other.auth);
    expect(foreign.status).toBe(404);
    expect(foreign.body.code).toBe('not-found');
    expect((await get(t.auth, 2147483647)).status).toBe(404);
    expect((await get(t.auth)).status).toBe(200);
  });

  it('answers a page saying so for a wall without slots', async () => {
    const t = await newTenant(api);
    const wall = await addWall(api.runtime.orm.em.fork(), t.clientId, { name: 'Empty one' });
    const res = await request(api.app).get(`/api/v1/walls/${wall.id}/slot-labels.pdf`).set('Authorization', t.auth).buffer(true).parse(binary);
    expect(res.status).toBe(200);
    expect(decodePdfPages(res.body as Buffer)).toEqual([[]]);
    expect(pdfText(res.body as Buffer)).toContain('has no slots yet');
  });
});
