import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import type { Browser, Page } from 'playwright-core';
import { SimulatedPrinter } from '../../services/simulator/sim-printer';
import { launchChromium, servePages, type PagesServer } from '../support/pages-server';
import { startTestApi, uniqueSuffix, waitFor, type TestApi } from '../support/test-api';
import { buildFloor, connect, scan, type Floor } from '../support/sorting-floor';

/*
 * The shipper's page on a tablet at the back of the wall (README "The pages"): the Complete slots,
 * oldest first and live; a B- scan prints the plate on the wall's printer and frees the slot; a printer
 * that does not answer is said so, and the label comes out when it is back; a wall without a printer
 * offers the PDF; wrong scans are refused in words. Screenshots in SHOTS (outside the repository).
 */

// The page's globals, for the few checks that run in the browser (the project's types carry no DOM).
declare const document: { documentElement: { scrollWidth: number } };
declare const window: { innerWidth: number };

const SHOTS = process.env.SHOTS_DIR ?? join(__dirname, '..', 'artifacts');
const STEP_MS = 15_000;
jest.setTimeout(150_000);

describe('the shipper page', () => {
  let api: TestApi;
  let pages: PagesServer;
  let browser: Browser;
  let floor: Floor;
  let manager: string;
  let printerId: number;
  const printer = new SimulatedPrinter();
  const shipper = { email: `shipper-${uniqueSuffix()}@example.com`, password: 'shipper-pass-1' };

  /** Order 100n (n units of SKU-n) sorted into its slot, one scan confirmed for all n: the slot is Complete. */
  async function complete(n: number): Promise<{ crc: string; position: number }> {
    const sorter = await floor.sorter(1);
    const session = (await connect(api, floor, sorter.auth)).body as { token: string };
    const item = await scan(api, sorter.auth, session.token, `SKU-${n}`);
    expect(item.status).toBe(200);
    await request(api.app).patch(`/api/v1/sort-box-items/${item.body.id}/confirm?units=${n}`).set('Authorization', sorter.auth).expect(200);
    return { crc: item.body.crc, position: item.body.position };
  }

  async function scanOn(page: Page, code: string): Promise<void> {
    await page.fill('#scan', code);
    await page.press('#scan', 'Enter');
  }

  const rows = (page: Page) => page.$$eval('#slots li', (lis) => lis.map((li) => (li as unknown as { dataset: { crc: string } }).dataset.crc));

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    await printer.start();
    api = await startTestApi({ workers: ['sorting', 'outbox', 'labels'], env: { PRINT_RETRY_BASE_MS: '200', PRINT_RETRY_MAX_MS: '500' } });
    pages = await servePages(api);
    const products = [1, 2, 3, 4].map((n) => ({ sku: `SKU-${n}` }));
    floor = await buildFloor(api, { slots: 6, products, orders: [1, 2, 3, 4].map((n) => ({ id: 1000 + n, items: [{ sku: `SKU-${n}`, qty: n }] })) });
    manager = (await floor.manager()).auth;
    await request(api.app).post('/api/v1/admin/employees').set('Authorization', floor.tenant.auth).send({ ...shipper, firstName: 'Sid', lastName: 'Shipper', roles: ['Sorter'] }).expect(200);
    printerId = (await request(api.app).post('/api/v1/printers').set('Authorization', manager).send({ name: 'Back of wall', host: '127.0.0.1', port: printer.port }).expect(200)).body.id;
    await request(api.app).patch(`/api/v1/walls/${floor.wallId}`).set('Authorization', manager).send({ printerId }).expect(200);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await pages?.close();
    await api?.close();
    await printer.stop();
  });

  it('lists the Complete slots live, prints and frees a slot on a B- scan, says when the printer is away, refuses wrong scans in words', async () => {
    const first = await complete(1);
    const tablet = await browser.newPage({ viewport: { width: 800, height: 1000 }, hasTouch: true });
    const errors: string[] = [];
    tablet.on('pageerror', (e) => errors.push(e.message));
    await tablet.goto(`${pages.base}/shipper`);
    await tablet.fill('#sign-in input[name=username]', shipper.email);
    await tablet.fill('#sign-in input[name=password]', shipper.password);
    await tablet.click('#sign-in button[type=submit]');
    await tablet.waitForSelector(`#slots li[data-crc="${first.crc}"]`, { timeout: STEP_MS });
    expect(await tablet.textContent('#printer')).toContain('Back of wall');
    expect(await tablet.textContent(`#slots li[data-crc="${first.crc}"]`)).toContain('Order 1001 · 1 unit');

    // Live: a slot completed while the page is open joins the list, after the older one.
    const second = await complete(2);
    await tablet.waitForSelector(`#slots li[data-crc="${second.crc}"]`, { timeout: STEP_MS });
    expect(await rows(tablet)).toEqual([first.crc, second.crc]);
    expect(await tablet.textContent(`#slots li[data-crc="${second.crc}"]`)).toContain('Order 1002 · 2 units');
    expect(await tablet.textContent('#count')).toBe('2');
    await tablet.screenshot({ path: join(SHOTS, 'shipper-list.png') });
    // The same page on a phone: one column, nothing cut off.
    const phone = await browser.newPage({ viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true });
    await phone.goto(`${pages.base}/shipper`);
    await phone.fill('#sign-in input[name=username]', shipper.email);
    await phone.fill('#sign-in input[name=password]', shipper.password);
    await phone.click('#sign-in button[type=submit]');
    await phone.waitForSelector(`#slots li[data-crc="${second.crc}"]`, { timeout: STEP_MS });
    expect(await phone.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await phone.screenshot({ path: join(SHOTS, 'shipper-phone.png') });
    await phone.close();

    // Wrong scans: the front barcode, a product, an empty slot. Nothing changes.
    await scanOn(tablet, `A-${first.crc}`);
    await tablet.waitForSelector('#refusal:not([hidden]) #refusal-title:has-text("front barcode")', { timeout: STEP_MS });
    expect(await tablet.textContent('#refusal-detail')).toContain('Scan the B- barcode on the back');
    await scanOn(tablet, 'SKU-3');
    await tablet.waitForSelector('#refusal-title:has-text("Not a slot barcode")', { timeout: STEP_MS });
    const empty = floor.slots.find((s) => s.crc !== first.crc && s.crc !== second.crc)!;
    await scanOn(tablet, `b-${empty.crc.toLowerCase()}`);
    await tablet.waitForSelector(`#refusal-title:has-text("Slot ${empty.position} is empty")`, { timeout: STEP_MS });
    await tablet.screenshot({ path: join(SHOTS, 'shipper-refusal.png') });
    expect(await rows(tablet)).toEqual([first.crc, second.crc]);
    expect(printer.labels).toHaveLength(0);

    // The B- scan: the plate prints on the wall's printer and the slot is free.
    await scanOn(tablet, `B-${first.crc}`);
    await tablet.waitForSelector(`#result-title:has-text("Slot ${first.position} is free")`, { timeout: STEP_MS });
    await tablet.waitForSelector(`#result-detail:has-text("Label printed on 'Back of wall'")`, { timeout: STEP_MS });
    await waitFor(() => printer.labels.length === 1, { what: 'the label at the printer' });
    expect(printer.labels[0]!.bytes.toString('utf8')).toContain('ORDER 1001');
    await waitFor(async () => (await rows(tablet)).join() === second.crc, { what: 'the released slot to leave the list' });
    const slot = (await request(api.app).get(`/api/v1/walls/${floor.wallId}`).set('Authorization', manager)).body.slots.find((s: { crc: string }) => s.crc === first.crc);
    expect(slot.status).toBe('Empty');
    await tablet.screenshot({ path: join(SHOTS, 'shipper-printed.png') });

    // The printer goes away: the slot is freed, the page says the label waits for the printer, and
    // the label comes out once it is back.
    await printer.stop();
    await scanOn(tablet, `B-${second.crc}`);
    await tablet.waitForSelector('#result[data-state=waiting] #result-detail:has-text("is not answering")', { timeout: STEP_MS });
    await tablet.waitForSelector('#printer[data-state=failing]', { timeout: STEP_MS });
    await tablet.screenshot({ path: join(SHOTS, 'shipper-printer-away.png') });
    await printer.start();
    await tablet.waitForSelector(`#result-detail:has-text("Label printed on 'Back of wall'")`, { timeout: STEP_MS });
    expect(printer.labels.filter((l) => l.bytes.toString('utf8').includes('ORDER 1002'))).toHaveLength(1);

    // A wall without a printer: the page offers the label as a PDF, and frees the slot.
    await request(api.app).patch(`/api/v1/walls/${floor.wallId}`).set('Authorization', manager).send({ printerId: null }).expect(200);
    const third = await complete(3);
    await tablet.reload();
    await tablet.waitForSelector(`#slots li[data-crc="${third.crc}"]`, { timeout: STEP_MS });
    expect(await tablet.textContent('#printer')).toContain('No printer');
    await tablet.click(`#slots li[data-crc="${third.crc}"] button`);
    await tablet.waitForSelector('#result-pdf:not([hidden])', { timeout: STEP_MS });
    expect(await tablet.getAttribute('#result-pdf', 'href')).toMatch(/^blob:/);
    expect(await tablet.getAttribute('#result-pdf', 'download')).toMatch(/^LP\d+\.pdf$/);
    await tablet.screenshot({ path: join(SHOTS, 'shipper-pdf.png') });
    expect(printer.labels).toHaveLength(2);
    expect(errors).toEqual([]);
  });
});
