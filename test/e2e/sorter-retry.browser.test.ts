import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import request from 'supertest';
import type { Browser } from 'playwright-core';
import { launchChromium, servePages, type PagesServer } from '../support/pages-server';
import { startTestApi, uniqueSuffix, waitFor, type TestApi } from '../support/test-api';
import { buildFloor, type Floor } from '../support/sorting-floor';

/*
 * A scan answered 504 may still be applied (docs/api.md §1 "Retrying"). The sorter who scans the same
 * unit again must not get a second item lit on the wall: the page resends the first scan's
 * Idempotency-Key. Here the wall's row is locked by the test, so the worker that took the scan waits
 * past the API's (short) command timeout and the page shows the 504; the sorter scans the same unit
 * again while that first scan is still held; the lock goes, the first scan is applied, and the retry
 * answers its outcome: one item, not two. A different unit afterwards is a new scan.
 * Screenshot in test/artifacts/sorter-retry-504.png.
 */

const ARTIFACTS = join(__dirname, '..', 'artifacts');
const STEP_MS = 20_000;
jest.setTimeout(120_000);

describe('the sorter page retries a scan answered 504 with the same key', () => {
  let api: TestApi;
  let pages: PagesServer;
  let browser: Browser;
  let floor: Floor;
  const sorter = { email: `retry-${uniqueSuffix()}@example.com`, password: 'sorter-pass-1' };

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    // Long enough for the retry to be answered once the lock goes, on a loaded machine.
    api = await startTestApi({ workers: ['sorting'], env: { COMMAND_TIMEOUT_MS: '4000' } });
    pages = await servePages(api);
    floor = await buildFloor(api, { slots: 4, orders: [{ id: 1, items: [{ sku: 'SKU-A', qty: 5 }] }, { id: 2, items: [{ sku: 'SKU-B', qty: 1 }] }] });
    await request(api.app).post('/api/v1/admin/employees').set('Authorization', floor.tenant.auth).send({ ...sorter, firstName: 'Rey', lastName: 'Try', roles: ['Sorter'] }).expect(200);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await pages?.close();
    await api?.close();
  });

  const items = async (sku: string) =>
    (await api.runtime.orm.em.fork().execute(
      `select i.id, i.status from sort_box_item i where i.wall_id = ? and i.sku = ? order by i.id`,
      [floor.wallId, sku],
    )) as { id: number; status: string }[];

  it('scanning the same unit again after a 504 finds the first scan, not a second item', async () => {
    const phone = await browser.newPage({ viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true });
    const errors: string[] = [];
    phone.on('pageerror', (e) => errors.push(e.message));
    await phone.goto(`${pages.base}/sorter`);
    await phone.fill('#sign-in input[name=username]', sorter.email);
    await phone.fill('#sign-in input[name=password]', sorter.password);
    await phone.click('#sign-in button[type=submit]');
    await phone.click('#wall-list button.wall', { timeout: STEP_MS });
    await phone.waitForSelector('#who:has-text("You are Red")', { timeout: STEP_MS });

    // The wall's row locked: the worker that takes the scan waits at its write.
    const holder = new Client({ connectionString: api.runtime.config.DATABASE_URL });
    await holder.connect();
    try {
      await holder.query('begin');
      await holder.query('select id from wall where id = $1 for update', [floor.wallId]);

      await phone.keyboard.type('SKU-A');
      await phone.keyboard.press('Enter');
      await phone.waitForSelector('#refusal:not([hidden])', { timeout: STEP_MS });
      expect(await phone.textContent('#refusal-detail')).toContain('Scan the same unit again');
      await phone.screenshot({ path: join(ARTIFACTS, 'sorter-retry-504.png') });
      expect(await items('SKU-A')).toEqual([]);

      // The sorter scans the same unit again while the first scan is still held; then the lock goes.
      const retried = phone.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith('/api/v1/sort-box-items'), { timeout: STEP_MS });
      await phone.keyboard.type('SKU-A');
      await phone.keyboard.press('Enter');
      await retried;
      await holder.query('rollback');
    } finally {
      await holder.end();
    }
    await phone.waitForSelector('#target[data-state=put]', { timeout: STEP_MS });
    const first = await waitFor(async () => (await items('SKU-A')).length > 0 && items('SKU-A'), { timeoutMs: STEP_MS, what: 'the first scan applied' });
    expect(first).toEqual([{ id: expect.any(Number), status: 'PendingConfirmation' }]);
    expect(await phone.textContent('#expect')).toContain('Scan slot');

    // A genuinely new scan (the unit confirmed, the next unit of the same product) is a new key: a second item.
    const pos = Number(await phone.textContent('#slot-no'));
    const crc = floor.slots.find((s) => s.position === pos)!.crc;
    await phone.keyboard.type(`A-${crc}`);
    await phone.keyboard.press('Enter');
    await phone.waitForSelector('#target[data-done=true]', { timeout: STEP_MS });
    await phone.keyboard.type('SKU-A');
    await phone.keyboard.press('Enter');
    await phone.waitForSelector('#target[data-state=put]', { timeout: STEP_MS });
    expect((await items('SKU-A')).map((i) => i.status)).toEqual(['Confirmed', 'PendingConfirmation']);
    expect(errors).toEqual([]);
  });
});
