import request from 'supertest';
import { SimulatedPrinter } from '../../services/simulator/sim-printer';
import { UNKNOWN_OUTCOME } from '../../workers/labels/print-sender';
import { buildFloor, connect, scan, type Floor } from '../support/sorting-floor';
import { newTenant, useTestApi, waitFor } from '../support/test-api';

/*
 * Network label printers (docs/api.md §12) against a simulated printer: a TCP server that records what
 * it receives, goes away and comes back. The labels worker sends the print jobs; a job is Queued while
 * the printer does not answer, retried with growing waits, Sent once the printer took every byte, and
 * never sent again after that.
 */
describe('printers and print jobs', () => {
  const api = useTestApi({ workers: ['sorting', 'outbox', 'labels'], env: { PRINT_RETRY_BASE_MS: '100', PRINT_RETRY_MAX_MS: '400' } });
  const printer = new SimulatedPrinter();
  beforeAll(async () => void (await printer.start()));
  // Each test begins with the printer there, whatever the one before it left.
  beforeEach(async () => void (await printer.start()));
  afterAll(async () => printer.stop());

  const v1 = (path: string) => `/api/v1${path}`;
  const db = () => api.runtime.orm.em.fork().getConnection();

  /** A floor whose orders 1..n each need one unit of their own SKU, and a manager's bearer. */
  async function floorWithOrders(n: number): Promise<{ floor: Floor; manager: string }> {
    const products = Array.from({ length: n }, (_, i) => ({ sku: `SKU-${i + 1}` }));
    const orders = products.map((p, i) => ({ id: i + 1, items: [{ sku: p.sku, qty: 1 }] }));
    const floor = await buildFloor(api, { slots: n, products, orders });
    return { floor, manager: (await floor.manager()).auth };
  }

  /** Scans and confirms order `n`'s one unit: its slot becomes Complete. Answers the slot's crc. */
  async function complete(floor: Floor, n: number): Promise<string> {
    const sorter = await floor.sorter(1);
    const session = (await connect(api, floor, sorter.auth)).body as { token: string };
    const item = await scan(api, sorter.auth, session.token, `SKU-${n}`);
    expect(item.status).toBe(200);
    const confirmed = await request(api.app).patch(v1(`/sort-box-items/${item.body.id}/confirm`)).set('Authorization', sorter.auth);
    expect(confirmed.status).toBe(200);
    return item.body.crc as string;
  }

  async function addPrinter(auth: string, port = printer.port): Promise<number> {
    const res = await request(api.app).post(v1('/printers')).set('Authorization', auth).send({ name: 'Wall back', host: '127.0.0.1', port });
    expect(res.status).toBe(200);
    return res.body.id as number;
  }

  const job = async (auth: string, id: number) => (await request(api.app).get(v1(`/print-jobs/${id}`)).set('Authorization', auth)).body;
  const labelsFor = (plate: string) => printer.labels.filter((l) => l.plateNumber === plate);

  it('registers printers per client, names one on a wall, and refuses to remove one a wall names', async () => {
    const { floor, manager } = await floorWithOrders(1);
    const created = await request(api.app).post(v1('/printers')).set('Authorization', manager).send({ name: ' Back of wall 1 ', host: 'zebra-1.floor.local' });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({ id: expect.any(Number), name: 'Back of wall 1', host: 'zebra-1.floor.local', port: 9100, lastPrintedAt: null, lastError: null });
    const id = created.body.id as number;
    expect((await request(api.app).get(v1('/printers')).set('Authorization', manager)).body).toEqual([created.body]);
    expect((await request(api.app).get(v1(`/printers/${id}`)).set('Authorization', manager)).body).toEqual(created.body);

    // Bad input changes nothing.
    for (const body of [{ name: 'x', host: 'not a host!' }, { name: 'x', host: '10.0.0.9', port: 70000 }, { name: '', host: '10.0.0.9' }, { host: '10.0.0.9' }]) {
      const bad = await request(api.app).post(v1('/printers')).set('Authorization', manager).send(body);
      expect(bad.status).toBe(400);
      expect(bad.body.code).toBe('validation-failed');
    }
    // A sorter reads printers but does not register them.
    const sorter = (await floor.sorter(1)).auth;
    expect((await request(api.app).post(v1('/printers')).set('Authorization', sorter).send({ name: 'x', host: '10.0.0.9' })).status).toBe(403);
    expect((await request(api.app).get(v1('/printers')).set('Authorization', sorter)).status).toBe(200);
    // Another client sees none of it.
    const other = await newTenant(api, 'Other');
    expect((await request(api.app).get(v1(`/printers/${id}`)).set('Authorization', other.auth)).status).toBe(404);
    expect((await request(api.app).get(v1('/printers')).set('Authorization', other.auth)).body).toEqual([]);
    const foreign = await request(api.app).patch(v1(`/walls/${floor.wallId}`)).set('Authorization', manager).send({ printerId: (await addPrinter(other.auth)) });
    expect(foreign.status).toBe(404);
    expect(foreign.body.code).toBe('printer-not-found');

    // The wall names it: the Wall record shows it everywhere.
    const wall = await request(api.app).patch(v1(`/walls/${floor.wallId}`)).set('Authorization', manager).send({ printerId: id, autoPrint: true });
    expect(wall.status).toBe(200);
    expect(wall.body).toMatchObject({ id: floor.wallId, printerId: id, autoPrint: true });
    expect((await request(api.app).get(v1(`/walls/${floor.wallId}`)).set('Authorization', sorter)).body).toMatchObject({ printerId: id, autoPrint: true });
    expect((await request(api.app).get(v1('/walls')).set('Authorization', sorter)).body[0]).toMatchObject({ printerId: id, autoPrint: true });
    // PUT is the same edit; a field left out stays.
    const put = await request(api.app).put(v1(`/walls/${floor.wallId}`)).set('Authorization', manager).send({ autoPrint: false });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ printerId: id, autoPrint: false });

    const inUse = await request(api.app).delete(v1(`/printers/${id}`)).set('Authorization', manager);
    expect(inUse.status).toBe(409);
    expect(inUse.body.code).toBe('printer-in-use');
    expect(inUse.body.detail).toContain(`wall '`);
    expect((await request(api.app).patch(v1(`/walls/${floor.wallId}`)).set('Authorization', manager).send({ printerId: null })).body).toMatchObject({ printerId: null });
    expect((await request(api.app).delete(v1(`/printers/${id}`)).set('Authorization', manager)).status).toBe(200);
    expect((await request(api.app).get(v1(`/printers/${id}`)).set('Authorization', manager)).status).toBe(404);
  }, 60_000);

  it('prints a slot on its wall printer: exactly the bytes /zpl answers, once; no printer is 409 no-printer', async () => {
    const { floor, manager } = await floorWithOrders(2);
    const crc = await complete(floor, 1);
    const shipper = (await floor.sorter(2)).auth;
    const none = await request(api.app).post(v1(`/license-plates/B-${crc}/print`)).set('Authorization', shipper);
    expect(none.status).toBe(409);
    expect(none.body.code).toBe('no-printer');
    expect(none.body.detail).toMatch(/PDF/);

    const printerId = await addPrinter(manager);
    expect((await request(api.app).patch(v1(`/walls/${floor.wallId}`)).set('Authorization', manager).send({ printerId })).status).toBe(200);
    const emptySlot = floor.slots.find((s) => s.crc !== crc)!;
    expect((await request(api.app).post(v1(`/license-plates/B-${emptySlot.crc}/print`)).set('Authorization', shipper)).body.code).toBe('slot-not-complete');

    const queued = await request(api.app).post(v1(`/license-plates/B-${crc}/print`)).set('Authorization', shipper);
    expect(queued.status).toBe(202);
    expect(queued.body).toMatchObject({ id: expect.any(Number), printerId, orderId: 1, status: 'Queued', attempts: 0, lastError: null, sentAt: null });
    const sent = await waitFor(async () => {
      const j = await job(shipper, queued.body.id);
      return j.status === 'Sent' ? j : null;
    }, { timeoutMs: 20_000, what: 'the print job to be Sent' });
    expect(sent).toMatchObject({ attempts: 1, lastError: null, sentAt: expect.any(String) });

    const zpl = await request(api.app).post(v1(`/license-plates/B-${crc}/zpl`)).set('Authorization', shipper);
    const plate = zpl.headers['x-license-plate'] as string;
    const received = await waitFor(() => (labelsFor(plate).length === 1 ? labelsFor(plate) : null), { what: 'the label at the printer' });
    expect(received[0]!.bytes.equals(Buffer.from(zpl.text, 'utf8'))).toBe(true);
    const health = (await request(api.app).get(v1(`/printers/${printerId}`)).set('Authorization', manager)).body;
    expect(health.lastPrintedAt).not.toBeNull();
    expect(health.lastError).toBeNull();
    // The print is a print like /zpl: audited.
    const audits = await db().execute<{ n: string }[]>(`select count(*) as n from audit_log where client_id = ? and order_id = 1 and is_license_plate`, [floor.tenant.clientId]);
    expect(Number(audits[0]!.n)).toBe(2);
    const jobs = (await request(api.app).get(v1(`/printers/${printerId}/jobs`)).set('Authorization', manager)).body;
    expect(jobs).toEqual([sent]);
  }, 60_000);

  it('prints a test label on a printer (Manager): a job without an order, sent like any other; 404 for another client\'s printer', async () => {
    const { floor, manager } = await floorWithOrders(1);
    const printerId = await addPrinter(manager);
    const sorter = (await floor.sorter(1)).auth;
    const refused = await request(api.app).post(v1(`/printers/${printerId}/test`)).set('Authorization', sorter);
    expect(refused.status).toBe(403);
    const other = await newTenant(api, 'Other');
    expect((await request(api.app).post(v1(`/printers/${printerId}/test`)).set('Authorization', other.auth)).status).toBe(404);
    const before = printer.labels.length;
    const queued = await request(api.app).post(v1(`/printers/${printerId}/test`)).set('Authorization', manager);
    expect(queued.status).toBe(202);
    expect(queued.body).toMatchObject({ printerId, orderId: null, status: 'Queued', attempts: 0 });
    const sent = await waitFor(async () => {
      const j = await job(manager, queued.body.id);
      return j.status === 'Sent' ? j : null;
    }, { timeoutMs: 20_000, what: 'the test print to be Sent' });
    expect(sent).toMatchObject({ orderId: null, attempts: 1, lastError: null });
    const label = await waitFor(() => printer.labels[before] ?? null, { what: 'the test label at the printer' });
    const zpl = label.bytes.toString('utf8');
    expect(zpl).toContain('^FDTEST PRINT^FS');
    expect(zpl).toContain('^FDWall back^FS');
    expect(label.plateNumber).toMatch(new RegExp(`^TEST-${printerId}-`));
    expect(printer.labels).toHaveLength(before + 1);
    const jobs = (await request(api.app).get(v1(`/printers/${printerId}/jobs`)).set('Authorization', manager)).body;
    expect(jobs).toEqual([sent]);
  }, 60_000);

  it('keeps a job Queued while the printer is away, retries it, and sends it once when the printer comes back', async () => {
    const { floor, manager } = await floorWithOrders(2);
    const printerId = await addPrinter(manager);
    await request(api.app).patch(v1(`/walls/${floor.wallId}`)).set('Authorization', manager).send({ printerId });
    const crc = await complete(floor, 1);
    const shipper = (await floor.sorter(2)).auth;

    await printer.stop();
    const queued = await request(api.app).post(v1(`/license-plates/${crc}/print`)).set('Authorization', shipper);
    expect(queued.status).toBe(202);
    const retrying = await waitFor(async () => {
      const j = await job(shipper, queued.body.id);
      return j.status === 'Queued' && j.attempts >= 3 ? j : null;
    }, { timeoutMs: 20_000, what: 'three attempts against the absent printer' });
    expect(retrying.lastError).toMatch(/refused the connection/);
    const failing = (await request(api.app).get(v1(`/printers/${printerId}`)).set('Authorization', manager)).body;
    expect(failing.lastError).toMatch(/refused the connection/);
    const metrics = await request(api.app).get('/metrics');
    expect(metrics.text).toMatch(/^printers\{state="failing"\} [1-9]/m);
    expect(metrics.text).toMatch(/^print_jobs_queued [1-9]/m);

    await printer.start();
    const sent = await waitFor(async () => {
      const j = await job(shipper, queued.body.id);
      return j.status === 'Sent' ? j : null;
    }, { timeoutMs: 20_000, what: 'the job to be Sent once the printer is back' });
    expect(sent.lastError).toBeNull();
    expect((await request(api.app).get(v1(`/printers/${printerId}`)).set('Authorization', manager)).body.lastError).toBeNull();

    // Never twice: a later job to the same printer is sent, and the first label still came once.
    const plate = (await db().execute<{ plate_number: string }[]>(`select plate_number from print_job where id = ?`, [queued.body.id]))[0]!.plate_number;
    const crc2 = await complete(floor, 2);
    const second = await request(api.app).post(v1(`/license-plates/${crc2}/print`)).set('Authorization', shipper);
    await waitFor(async () => (await job(shipper, second.body.id)).status === 'Sent', { timeoutMs: 20_000, what: 'the second job' });
    const plate2 = (await db().execute<{ plate_number: string }[]>(`select plate_number from print_job where id = ?`, [second.body.id]))[0]!.plate_number;
    await waitFor(() => labelsFor(plate2).length === 1, { what: 'the second label' });
    expect(labelsFor(plate)).toHaveLength(1);
  }, 90_000);

  it('never writes again a job whose write began and whose outcome was not recorded; gives up a job its printer never took in time', async () => {
    const { floor, manager } = await floorWithOrders(2);
    const printerId = await addPrinter(manager);
    await request(api.app).patch(v1(`/walls/${floor.wallId}`)).set('Authorization', manager).send({ printerId });
    const shipper = (await floor.sorter(2)).auth;
    const crc = await complete(floor, 1);
    await printer.stop();
    const queued = await request(api.app).post(v1(`/license-plates/${crc}/print`)).set('Authorization', shipper);
    await waitFor(async () => (await job(shipper, queued.body.id)).attempts >= 1, { timeoutMs: 20_000, what: 'a first attempt' });
    // As if a sender had died after it began to write this job: the next claim closes it unsent. Marked
    // only between attempts: an attempt in flight (claimed, its lease due far ahead) would record its own
    // refusal over the mark, as a live sender does. The row lock keeps a claim out while it is marked.
    await waitFor(
      async () =>
        (
          await db().execute<{ id: number }[]>(
            `update print_job set writing_attempt = attempts, due_at = now() where id = ? and status = 'Queued' and due_at < now() + interval '5 seconds' returning id`,
            [queued.body.id],
          )
        ).length === 1,
      { timeoutMs: 20_000, what: 'a moment between two attempts to mark the job as written' },
    );
    const closed = await waitFor(async () => {
      const j = await job(shipper, queued.body.id);
      return j.status === 'Failed' ? j : null;
    }, { timeoutMs: 20_000, what: 'the job with an unknown outcome to be closed' });
    expect(closed.lastError).toBe(UNKNOWN_OUTCOME);

    // A job made long ago that its printer never took: Failed, saying so, rather than printed late.
    const crc2 = await complete(floor, 2);
    const late = await request(api.app).post(v1(`/license-plates/${crc2}/print`)).set('Authorization', shipper);
    await waitFor(async () => (await job(shipper, late.body.id)).attempts >= 1, { timeoutMs: 20_000, what: 'a first attempt of the late job' });
    await db().execute(`update print_job set created_at = now() - interval '1 day', due_at = now() where id = ?`, [late.body.id]);
    const gaveUp = await waitFor(async () => {
      const j = await job(shipper, late.body.id);
      return j.status === 'Failed' ? j : null;
    }, { timeoutMs: 20_000, what: 'the late job to be given up' });
    expect(gaveUp.lastError).toMatch(/^The printer did not take the label in time.*Last error: The printer at 127\.0\.0\.1:\d+ refused/);
    await printer.start();
    const plateOf = async (id: number) => (await db().execute<{ plate_number: string }[]>(`select plate_number from print_job where id = ?`, [id]))[0]!.plate_number;
    // Nothing of either reaches the printer once it is back: a reprint of order 2 is the barrier, the
    // one label of order 2's plate.
    const barrier = await request(api.app).post(v1(`/license-plates/${crc2}/print`)).set('Authorization', shipper);
    await waitFor(async () => (await job(shipper, barrier.body.id)).status === 'Sent', { timeoutMs: 20_000, what: 'the barrier job' });
    const plate2 = await plateOf(late.body.id);
    await waitFor(() => labelsFor(plate2).length >= 1, { what: 'the barrier label' });
    expect(labelsFor(await plateOf(queued.body.id))).toHaveLength(0);
    expect(labelsFor(plate2)).toHaveLength(1);
  }, 90_000);

  it("prints an order's plate by itself when it completes in a wall with autoPrint, once", async () => {
    const { floor, manager } = await floorWithOrders(2);
    const printerId = await addPrinter(manager);
    await request(api.app).patch(v1(`/walls/${floor.wallId}`)).set('Authorization', manager).send({ printerId, autoPrint: true });
    await complete(floor, 1);
    const [sent] = await waitFor(async () => {
      const jobs = (await request(api.app).get(v1(`/printers/${printerId}/jobs`)).set('Authorization', manager)).body as { status: string; orderId: number }[];
      return jobs.length === 1 && jobs[0]!.status === 'Sent' ? jobs : null;
    }, { timeoutMs: 30_000, what: 'the automatic print job to be Sent' });
    expect(sent).toMatchObject({ orderId: 1, attempts: 1 });
    const [{ plate_number: plate }] = await db().execute<{ plate_number: string }[]>(`select plate_number from license_plate where client_id = ? and order_id = 1`, [floor.tenant.clientId]);
    await waitFor(() => labelsFor(plate!).length === 1, { what: 'the automatic label at the printer' });
    // The consumer has passed the completion and made one job for it; order 2 completes in the same way.
    await complete(floor, 2);
    await waitFor(async () => ((await request(api.app).get(v1(`/printers/${printerId}/jobs`)).set('Authorization', manager)).body as unknown[]).length === 2, {
      timeoutMs: 30_000,
      what: 'the second automatic job',
    });
    const perEvent = await db().execute<{ n: string }[]>(`select count(*) as n from print_job where printer_id = ? and source = 'auto' and event_id is not null`, [printerId]);
    expect(Number(perEvent[0]!.n)).toBe(2);
    expect(labelsFor(plate!)).toHaveLength(1);
  }, 90_000);
});
