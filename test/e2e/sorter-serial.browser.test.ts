import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import type { Browser } from 'playwright-core';
import { launchChromium, servePages, type PagesServer } from '../support/pages-server';
import { startTestApi, uniqueSuffix, type TestApi } from '../support/test-api';
import { buildFloor, type Floor } from '../support/sorting-floor';

/*
 * The sorter page and serial numbers (docs/api.md §7 "Serial numbers"): a scan of a product that
 * requires one lights its slot as always; after the slot's A- scan the field asks for the unit's serial
 * and the confirm carries both. A refused serial (already sorted) is shown with its detail and asked
 * for again; the next serial confirms. A product without serials is confirmed by the slot's scan alone.
 * Screenshots in test/artifacts/sorter-serial-*.png.
 */

const ARTIFACTS = join(__dirname, '..', 'artifacts');
const STEP_MS = 20_000;
jest.setTimeout(120_000);

describe('the sorter page asks for the serial number of a unit that needs one', () => {
  let api: TestApi;
  let pages: PagesServer;
  let browser: Browser;
  let floor: Floor;
  const sorter = { email: `serial-${uniqueSuffix()}@example.com`, password: 'sorter-pass-1' };

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    api = await startTestApi({ workers: ['sorting'] });
    pages = await servePages(api);
    floor = await buildFloor(api, {
      slots: 4,
      products: [{ sku: 'DRILL-18V', requiresSerial: true }, { sku: 'SKU-B' }],
      orders: [{ id: 1, items: [{ sku: 'DRILL-18V', qty: 2 }, { sku: 'SKU-B', qty: 1 }] }],
    });
    await request(api.app).post('/api/v1/admin/employees').set('Authorization', floor.tenant.auth).send({ ...sorter, firstName: 'Sam', lastName: 'Serial', roles: ['Sorter'] }).expect(200);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await pages?.close();
    await api?.close();
  });

  const items = async () =>
    (await api.runtime.orm.em.fork().execute(`select sku, status, serial from sort_box_item where wall_id = ? order by id`, [floor.wallId])) as {
      sku: string;
      status: string;
      serial: string | null;
    }[];

  it('asks for the serial after the slot, shows a refusal, and confirms with the next serial', async () => {
    const phone = await browser.newPage({ viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true });
    const errors: string[] = [];
    phone.on('pageerror', (e) => errors.push(e.message));
    const confirms: unknown[] = [];
    phone.on('request', (r) => {
      if (r.method() === 'PATCH' && r.url().includes('/confirm')) confirms.push(r.postDataJSON());
    });
    await phone.goto(`${pages.base}/sorter`);
    await phone.fill('#sign-in input[name=username]', sorter.email);
    await phone.fill('#sign-in input[name=password]', sorter.password);
    await phone.click('#sign-in button[type=submit]');
    await phone.click('#wall-list button.wall', { timeout: STEP_MS });
    await phone.waitForSelector('#who:has-text("You are Red")', { timeout: STEP_MS });
    const type = async (code: string) => {
      await phone.keyboard.type(code);
      await phone.keyboard.press('Enter');
    };

    // The first unit: product, slot, serial.
    await type('DRILL-18V');
    await phone.waitForSelector('#target[data-state=put]', { timeout: STEP_MS });
    expect(await phone.textContent('#slot-info')).toContain("and the unit's serial number");
    const position = Number(await phone.textContent('#slot-no'));
    const crc = floor.slots.find((s) => s.position === position)!.crc;
    await type(`A-${crc}`);
    await phone.waitForSelector('body[data-expect=serial]', { timeout: STEP_MS });
    expect(await phone.textContent('#expect')).toBe('Scan the serial number of the DRILL-18V unit');
    expect(confirms).toEqual([]); // the slot's scan alone sends nothing
    await phone.screenshot({ path: join(ARTIFACTS, 'sorter-serial-prompt.png') });
    await type('SN-0001');
    await phone.waitForSelector('#target[data-done=true]', { timeout: STEP_MS });
    expect(confirms).toEqual([{ barcode: `A-${crc}`, serial: 'SN-0001' }]);

    // The second unit with the same serial: refused with its detail, and the serial is asked again.
    await type('DRILL-18V');
    await phone.waitForSelector('#target[data-state=put]', { timeout: STEP_MS });
    await type(`A-${crc}`);
    await phone.waitForSelector('body[data-expect=serial]', { timeout: STEP_MS });
    await type('SN-0001');
    await phone.waitForSelector('#refusal:not([hidden])', { timeout: STEP_MS });
    expect(await phone.textContent('#refusal-title')).toBe('Serial number already sorted');
    expect(await phone.textContent('#refusal-detail')).toContain('order 1, slot 1');
    expect(await phone.getAttribute('body', 'data-expect')).toBe('serial');
    await phone.screenshot({ path: join(ARTIFACTS, 'sorter-serial-refused.png') });
    // The wall's read after a line's last unit answers late, as on a busy service: the next scan must not wait for it.
    await phone.route(/\/api\/v1\/walls\/\d+$/, async (route) => {
      await new Promise((r) => setTimeout(r, 1_000));
      await route.continue();
    });
    await type('SN-0002');
    await phone.waitForSelector('#target[data-done=true]', { timeout: STEP_MS });
    expect(await phone.isHidden('#refusal')).toBe(true);

    // A product without serials, scanned as soon as the ✓ shows (the wall's read still under way): the slot's scan confirms it.
    await type('SKU-B');
    await phone.waitForSelector('#target[data-state=put]', { timeout: STEP_MS });
    await type(`A-${crc}`);
    await phone.waitForSelector('#target[data-done=true]', { timeout: STEP_MS });
    expect(await items()).toEqual([
      { sku: 'DRILL-18V', status: 'Confirmed', serial: 'SN-0001' },
      { sku: 'DRILL-18V', status: 'Confirmed', serial: 'SN-0002' },
      { sku: 'SKU-B', status: 'Confirmed', serial: null },
    ]);
    expect(errors).toEqual([]);
  });
});
