import request from 'supertest';
import type { ISortBox } from '../../shared/db/entities';
import { decodePdfPages, pdfText } from '../support/pdf-barcodes';
import { addOrders, addProducts, addSlots, addWall, addWarehouse, putOrderInSlot } from '../support/fixtures';
import { newTenant, signedInEmployee, uniqueSuffix, useTestApi, type Tenant } from '../support/test-api';

/** Every barcode on the PDF's first page. */
const decodePdfBarcodes = (pdf: Buffer): string[] => decodePdfPages(pdf)[0] ?? [];

/** Reads a binary answer into a Buffer (supertest leaves non-text bodies alone only with a parser). */
const binary = (res: request.Response, cb: (err: Error | null, body: Buffer) => void) => {
  const chunks: Buffer[] = [];
  res.on('data', (c: Buffer) => chunks.push(c));
  res.on('end', () => cb(null, Buffer.concat(chunks)));
};

describe('license plates', () => {
  const api = useTestApi();

  interface Setup {
    t: Tenant;
    full: ISortBox;
    empty: ISortBox;
  }

  /** Order 7 (2 + 3 units, ship to an address with ZPL control characters) in a slot of wall 'Jackson St'; order 8 in no slot. */
  async function setup(): Promise<Setup> {
    const t = await newTenant(api);
    const em = api.runtime.orm.em.fork();
    const wh = await addWarehouse(em, t.clientId);
    await addProducts(em, t.clientId, [{ sku: 'A' }, { sku: 'B' }]);
    await addOrders(em, t.clientId, [
      {
        id: 7,
        warehouseId: wh.id,
        shipTo: { name: 'Zoë ^Doe_~', street1: '12 Elm St', street2: 'Suite 4', city: 'Portland', state: 'OR', postalCode: '97201', country: 'US' },
        items: [{ sku: 'A', qty: 2, confirmedQty: 2 }, { sku: 'B', qty: 3, confirmedQty: 3 }],
      },
      { id: 8, warehouseId: wh.id, items: [{ sku: 'A', qty: 1 }] },
    ]);
    const wall = await addWall(em, t.clientId, { name: 'Jackson St' });
    const [full, empty] = await addSlots(em, t.clientId, wall.id, 2);
    await putOrderInSlot(em, full!, 7, 'Complete');
    return { t, full: full!, empty: empty! };
  }

  const post = (t: Tenant, path: string) => request(api.app).post(`/api/v1/license-plates${path}`).set('Authorization', t.auth);

  async function auditRows(clientId: number) {
    return (await api.runtime.orm.em.fork().getConnection().execute(
      `select event_id, type, kind, is_license_plate, wall_id, user_id, order_id, crc, message, data from audit_log where client_id = ${clientId} order by id`,
    )) as { event_id: string; type: string; kind: string; is_license_plate: boolean; order_id: number; crc: string | null; user_id: number; message: string; data: { plateNumber: string; format: string; printCount: number } }[];
  }

  it('prints ZPL for the order in a slot with a native Code 128 of the plate and every field', async () => {
    const { t, full } = await setup();
    const res = await post(t, `/B-${full.crc.toLowerCase()}/zpl`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    const zpl = res.text;
    const plate = res.headers['x-license-plate'];
    expect(plate).toMatch(/^LP\d{10}$/);
    expect(zpl.startsWith('^XA')).toBe(true);
    expect(zpl.trimEnd().endsWith('^XZ')).toBe(true);
    expect(zpl).toContain('^PW812');
    expect(zpl).toContain('^LL1218');
    // ^BC then its field: the plate number, nothing else.
    expect(zpl).toMatch(new RegExp(`\\^BCN,\\d+,Y,N,N,A\\^FH\\^FD${plate}\\^FS`));
    const fields = [...zpl.matchAll(/\^FD(.*?)\^FS/g)].map((m) => m[1]);
    expect(fields).toEqual(
      expect.arrayContaining([
        'Zoë _5EDoe_5F_7E',
        '12 Elm St',
        'Suite 4',
        'Portland, OR 97201',
        'US',
        'ORDER 7',
        'WALL Jackson St',
        `SLOT ${full.position} (${full.crc})`,
        'UNITS 5',
      ]),
    );
    // No raw control character from the data reaches the printer.
    expect(fields.join('')).not.toMatch(/[\^~]/);
  });

  it('prints a 4×6 inch PDF whose barcode decodes to the plate number', async () => {
    const { t, full } = await setup();
    const res = await post(t, `/${full.crc}/pdf`).buffer(true).parse(binary);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    const pdf = res.body as Buffer;
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    expect(pdf.toString('latin1')).toMatch(/\/MediaBox \[0 0 288 432\]/);
    const plate = res.headers['x-license-plate'];
    expect(decodePdfBarcodes(pdf)).toEqual([plate]);
    const text = pdfText(pdf);
    for (const s of [plate, 'ORDER 7', 'WALL Jackson St', `SLOT ${full.position} (${full.crc})`, 'UNITS 5', '12 Elm St', 'Portland, OR 97201']) expect(text).toContain(s);
  });

  it('keeps the plate number of an order on every reprint, in any format and by crc or order id; audits each print once', async () => {
    const { t, full } = await setup();
    const first = await post(t, `/${full.crc}/zpl`);
    const plate = first.headers['x-license-plate'];
    const again = await post(t, '/orders/7/zpl');
    const pdf = await post(t, '/orders/7/pdf').buffer(true).parse(binary);
    expect([again.headers['x-license-plate'], pdf.headers['x-license-plate']]).toEqual([plate, plate]);
    const other = await post(t, '/orders/8/zpl');
    expect(other.status).toBe(200);
    expect(other.headers['x-license-plate']).not.toBe(plate);
    // An order in no slot prints dashes for wall and slot.
    expect(other.text).toContain('^FDWALL -^FS');
    expect(other.text).toContain('^FDSLOT -^FS');

    const rows = await auditRows(t.clientId);
    expect(rows).toHaveLength(4);
    expect(rows.every((r) => r.kind === 'license-plate' && r.is_license_plate && r.type === 'license-plate.generated' && r.user_id === t.adminId)).toBe(true);
    expect(rows.slice(0, 3).map((r) => [r.order_id, r.crc, r.data.printCount, r.data.format, r.data.plateNumber])).toEqual([
      [7, full.crc, 1, 'zpl', plate],
      [7, full.crc, 2, 'zpl', plate],
      [7, full.crc, 3, 'pdf', plate],
    ]);
    const [admin] = await api.runtime.orm.em.fork().execute<{ name: string }[]>("select first_name || ' ' || last_name as name from employee where id = ?", [t.adminId]);
    expect(rows[0]!.message).toBe(`License plate ${plate} (ZPL) printed for order 7 from slot ${full.position} (${full.crc}) of wall 'Jackson St' by ${admin!.name}.`);
    expect(rows[1]!.message).toMatch(/ \(reprint 1\)\.$/);
    expect(rows[3]!.message).toBe(`License plate ${other.headers['x-license-plate']} (ZPL) printed for order 8 by ${admin!.name}.`);
    expect(rows[3]).toMatchObject({ order_id: 8, crc: null });
    expect(new Set(rows.map((r) => r.event_id)).size).toBe(4);
  });

  it('a Sorter prints too (the shipper at the back of the wall signs in as one)', async () => {
    const { t, full } = await setup();
    const sorter = await signedInEmployee(api, t, { roles: ['Sorter'], email: `shipper-${uniqueSuffix()}@example.com`, firstName: 'Sam', lastName: 'Shipper' });
    const res = await request(api.app).post(`/api/v1/license-plates/B-${full.crc}/zpl`).set('Authorization', sorter.auth);
    expect(res.status).toBe(200);
    expect(res.text).toContain(`^FDSLOT ${full.position} (${full.crc})^FS`);
    expect((await auditRows(t.clientId))[0]!.message).toMatch(/ by Sam Shipper\.$/);
  });

  it('gives one plate number to an order printed many times at once', async () => {
    const { t } = await setup();
    const results = await Promise.all(Array.from({ length: 6 }, () => post(t, '/orders/8/zpl')));
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(new Set(results.map((r) => r.headers['x-license-plate'])).size).toBe(1);
    const rows = await auditRows(t.clientId);
    expect(rows.map((r) => r.data.printCount).sort()).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('answers 409 slot-not-complete for a slot with no order, 404 for an unknown crc or order, 400 for a malformed one', async () => {
    const { t, empty } = await setup();
    const res = await post(t, `/${empty.crc}/pdf`);
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('slot-not-complete');
    expect(res.body.detail).toContain('holds no order');
    expect(res.body.detail).toContain('/license-plates/orders/');
    expect((await post(t, '/00000000/zpl')).status).toBe(404);
    expect((await post(t, '/orders/999/pdf')).status).toBe(404);
    expect((await post(t, '/XYZ/zpl')).status).toBe(400);
    expect((await post(t, '/orders/abc/zpl')).status).toBe(400);
    // Another company's slot and order are unknown.
    const other = await newTenant(api);
    const { full } = await setup();
    expect((await post(other, `/${full.crc}/zpl`)).status).toBe(404);
    expect((await post(other, '/orders/7/zpl')).status).toBe(404);
    expect(await auditRows(t.clientId)).toEqual([]);
  });
});
