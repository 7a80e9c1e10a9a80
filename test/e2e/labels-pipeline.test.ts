import request from 'supertest';
import { buildFloor, connect, scan } from '../support/sorting-floor';
import { useTestApi, waitFor } from '../support/test-api';

/** Reads any answer into a Buffer, so the bytes can be compared with the stored document. */
const binary = (res: request.Response, cb: (err: Error | null, body: Buffer) => void) => {
  const chunks: Buffer[] = [];
  res.on('data', (c: Buffer) => chunks.push(c));
  res.on('end', () => cb(null, Buffer.concat(chunks)));
};

/*
 * The labels worker as one more consumer of the relayed events: a completed slot gets its license
 * plate rendered ahead, in the formats its client has been printing, and the shipper's print answers
 * that document while the data it shows is unchanged, still auditing the print. A client that never
 * printed gets nothing rendered ahead; its prints render when asked.
 */
describe('license plates rendered ahead by the labels worker', () => {
  const api = useTestApi({ workers: ['sorting', 'outbox', 'labels'] });

  it('renders nothing ahead for a client that never printed; its print renders when asked', async () => {
    const floor = await buildFloor(api, { slots: 2, orders: [{ id: 1, items: [{ sku: 'SKU-A', qty: 1 }] }, { id: 2, items: [{ sku: 'SKU-B', qty: 1 }] }] });
    const clientId = floor.tenant.clientId;
    const sorter = await floor.sorter(1);
    const { body: session } = await connect(api, floor, sorter.auth);
    const first = await scan(api, sorter.auth, session.token, 'SKU-A');
    expect((await request(api.app).patch(`/api/v1/sort-box-items/${first.body.id}/confirm`).set('Authorization', sorter.auth)).status).toBe(200);
    // The labels consumer has passed the completion (its position), and rendered nothing.
    const completedSeq = async () =>
      (await api.runtime.orm.em.fork().execute<{ seq: string | null }[]>(`select case when id <= (select through from outbox_horizon) then id end as seq from outbox_event where client_id = ? and type = 'sort-box.completed'`, [clientId]))[0]?.seq;
    await waitFor(async () => {
      const seq = await completedSeq();
      const [{ position }] = await api.runtime.orm.em.fork().execute<{ position: string }[]>(`select position from outbox_consumer where name = 'labels'`);
      return seq !== undefined && seq !== null && BigInt(position) >= BigInt(seq);
    }, { timeoutMs: 30_000, what: 'the labels consumer to pass the completion' });
    expect(await api.runtime.orm.em.fork().execute('select 1 from license_plate_document where client_id = ?', [clientId])).toEqual([]);
    const print = await request(api.app).post(`/api/v1/license-plates/orders/1/zpl`).set('Authorization', sorter.auth);
    expect(print.status).toBe(200);
    expect(print.text).toContain('^XA');
  }, 90_000);

  it('stores the printed formats when a slot completes; a print answers them while current and renders again once the order changed', async () => {
    const floor = await buildFloor(api, { slots: 2, orders: [{ id: 1, items: [{ sku: 'SKU-A', qty: 1 }] }, { id: 2, items: [{ sku: 'SKU-B', qty: 1 }] }] });
    const clientId = floor.tenant.clientId;
    const db = () => api.runtime.orm.em.fork().getConnection();
    const documents = async () =>
      db().execute<{ format: string; plate_number: string; body: Buffer }[]>(
        `select format, plate_number, body from license_plate_document where client_id = ? and order_id = 1 order by format`,
        [clientId],
      );
    const plateRow = async () => (await db().execute<{ plate_number: string; print_count: number }[]>(`select plate_number, print_count from license_plate where client_id = ? and order_id = 1`, [clientId]))[0];
    const printAudits = async () => Number((await db().execute<{ n: string }[]>(`select count(*) as n from audit_log where client_id = ? and order_id = 1 and is_license_plate`, [clientId]))[0]!.n);

    const sorter = await floor.sorter(1);
    // The client prints both formats (another order): those are the ones rendered ahead from now on.
    for (const format of ['zpl', 'pdf']) expect((await request(api.app).post(`/api/v1/license-plates/orders/2/${format}`).set('Authorization', sorter.auth)).status).toBe(200);
    const { body: session } = await connect(api, floor, sorter.auth);
    const item = await scan(api, sorter.auth, session.token, 'SKU-A');
    expect(item.status).toBe(200);
    const crc = item.body.crc as string;
    // Nothing is rendered before the slot completes.
    expect(await documents()).toEqual([]);
    expect((await request(api.app).patch(`/api/v1/sort-box-items/${item.body.id}/confirm`).set('Authorization', sorter.auth)).status).toBe(200);

    const stored = await waitFor(async () => {
      const docs = await documents();
      return docs.length === 2 ? docs : null;
    }, { timeoutMs: 30_000, what: 'the ZPL and PDF of order 1 rendered ahead' });
    expect(stored.map((d) => d.format)).toEqual(['pdf', 'zpl']);
    const [pdf, zpl] = stored as [(typeof stored)[0], (typeof stored)[0]];
    // The plate number is made ahead, with no print counted and no audit row: the audit counts prints.
    const plate = await plateRow();
    expect(plate).toMatchObject({ plate_number: pdf.plate_number, print_count: 0 });
    expect(zpl.plate_number).toBe(plate!.plate_number);
    expect(zpl.body.toString('utf8')).toContain(`^FD${plate!.plate_number}^FS`);
    expect(pdf.body.subarray(0, 5).toString()).toBe('%PDF-');
    expect(await printAudits()).toBe(0);

    const print = (path: string) => request(api.app).post(`/api/v1/license-plates${path}`).set('Authorization', sorter.auth).buffer(true).parse(binary);
    // A PDF carries its creation time, so the same bytes mean the stored document was answered.
    const pdfPrint = await print(`/B-${crc}/pdf`);
    expect(pdfPrint.status).toBe(200);
    expect(pdfPrint.headers['content-type']).toBe('application/pdf');
    expect(pdfPrint.headers['x-license-plate']).toBe(plate!.plate_number);
    expect(Buffer.compare(pdfPrint.body as Buffer, pdf.body)).toBe(0);
    expect(await printAudits()).toBe(1);
    expect((await plateRow())!.print_count).toBe(1);

    // A ZPL render is deterministic; a marker in the stored body shows which one is answered.
    const marked = `${zpl.body.toString('utf8')}^FXstored^FS`;
    await db().execute(`update license_plate_document set body = ? where client_id = ? and order_id = 1 and format = 'zpl'`, [Buffer.from(marked, 'utf8'), clientId]);
    const zplPrint = await print(`/orders/1/zpl`);
    expect(zplPrint.status).toBe(200);
    expect((zplPrint.body as Buffer).toString('utf8')).toBe(marked);
    expect(await printAudits()).toBe(2);

    // The order's ship-to changed after the render: the stored document is no longer current.
    await db().execute(`update orders set ship_to = jsonb_set(ship_to, '{name}', '"Changed Name"') where client_id = ? and id = 1`, [clientId]);
    const fresh = await print(`/orders/1/zpl`);
    expect(fresh.status).toBe(200);
    const text = (fresh.body as Buffer).toString('utf8');
    expect(text).not.toContain('^FXstored');
    expect(text).toContain('Changed Name');
    expect(fresh.headers['x-license-plate']).toBe(plate!.plate_number);
    expect(await printAudits()).toBe(3);
  }, 90_000);
});
