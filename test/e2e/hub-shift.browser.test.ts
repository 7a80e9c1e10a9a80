import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, servePages, type PagesServer } from '../support/pages-server';
import { startTestApi, waitFor, type TestApi } from '../support/test-api';
import { buildFloor, connect, scan, type Floor } from '../support/sorting-floor';

/*
 * The hub for the shift (README "The hub and sorter pages"): the bar counts the units left in the
 * wall's orders and says how long the oldest Complete slot has waited for the shipper (amber, then red);
 * the feed shows the wall's last events on open and after a reload (GET /events/recent), each once, and
 * goes on live from there; a wrong slot is shown by black-and-white stripes and a ✕, which no sorter
 * color has. Screenshots in test/artifacts/ (hub-shift-*.png).
 */

const ARTIFACTS = join(__dirname, '..', 'artifacts');
const STEP_MS = 15_000;
jest.setTimeout(180_000);

declare const document: { querySelector(s: string): unknown; querySelectorAll(s: string): ArrayLike<{ textContent: string | null; dataset: Record<string, string | undefined> }> };
declare function getComputedStyle(e: unknown, pseudo?: string): { content: string; backgroundColor: string; animationName: string };

const SORTER_HEX = ['#E53935', '#1E88E5', '#FDD835', '#43A047', '#D81B60', '#00ACC1'];
const rgb = (h: string) => `rgb(${parseInt(h.slice(1, 3), 16)}, ${parseInt(h.slice(3, 5), 16)}, ${parseInt(h.slice(5, 7), 16)})`;

describe('the hub for the shift', () => {
  let api: TestApi;
  let pages: PagesServer;
  let browser: Browser;
  let floor: Floor;

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    api = await startTestApi({ workers: ['sorting', 'outbox'] });
    pages = await servePages(api);
    floor = await buildFloor(api, {
      slots: 12,
      products: ['MUG', 'TEE', 'CAP', 'SOCKS'].map((sku) => ({ sku })),
      orders: [
        { id: 1, items: [{ sku: 'MUG', qty: 4 }] },
        { id: 2, items: [{ sku: 'TEE', qty: 1 }] },
        { id: 3, items: [{ sku: 'CAP', qty: 1 }] },
        { id: 4, items: [{ sku: 'SOCKS', qty: 3 }] },
      ],
    });
    await request(api.app).patch(`/api/v1/walls/${floor.wallId}`).set('Authorization', floor.tenant.auth).send({ segmentRows: 3, segmentColumns: 4 }).expect(200);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await pages?.close();
    await api?.close();
  });

  async function openHub(page: Page): Promise<void> {
    await page.goto(`${pages.base}/hub?wall=${floor.wallId}`);
    await page.fill('#sign-in input[name=username]', floor.tenant.adminEmail);
    await page.fill('#sign-in input[name=password]', floor.tenant.password);
    await page.click('#sign-in button[type=submit]');
    await page.waitForSelector('#live[data-state=on]', { timeout: STEP_MS });
  }

  const feedTexts = (page: Page) => page.evaluate(() => Array.from(document.querySelectorAll('#feed li'), (li) => li.textContent ?? ''));
  /** The feed's events by id: two events can read the same in the same second (one sorter scanning the same SKU twice). */
  const feedIds = (page: Page) => page.evaluate(() => Array.from(document.querySelectorAll('#feed li'), (li) => li.dataset.eventId ?? ''));
  const confirm = (id: number, auth: string, barcode?: string) =>
    request(api.app).patch(`/api/v1/sort-box-items/${id}/confirm`).set('Authorization', auth).send(barcode ? { barcode } : {});
  /** The outbox relay has published every event written so far: the feed on open can show them. */
  const relayed = () =>
    waitFor(
      async () => (await api.runtime.orm.em.fork().execute(`select count(*)::int as n from outbox_event where client_id = ? and id > (select through from outbox_horizon)`, [floor.tenant.clientId]))[0].n === 0,
      { timeoutMs: STEP_MS, what: 'the relay to publish the events' },
    );

  it('counts units left, times the oldest Complete slot, restores the feed, and marks a wrong slot with a ✕', async () => {
    const ana = await floor.sorter(1);
    const ben = await floor.sorter(2);
    const anaToken = (await connect(api, floor, ana.auth)).body.token as string;
    const benToken = (await connect(api, floor, ben.auth)).body.token as string;
    // Order 2 complete long ago, order 3 complete just now; a unit of order 1 in; order 4 waiting for a confirm.
    const tee = (await scan(api, ana.auth, anaToken, 'TEE')).body;
    await confirm(tee.id, ana.auth).expect(200);
    const cap = (await scan(api, ben.auth, benToken, 'CAP')).body;
    await confirm(cap.id, ben.auth).expect(200);
    const mug = (await scan(api, ana.auth, anaToken, 'MUG')).body;
    await confirm(mug.id, ana.auth).expect(200);
    const socks = (await scan(api, ben.auth, benToken, 'SOCKS')).body;
    // The shipper has kept slot of order 2 waiting for 25 minutes (its last confirm, moved back).
    await api.runtime.orm.em.fork().execute(`update sort_box_item set confirmed_at = now() - interval '25 minutes' where id = ?`, [tee.id]);
    await relayed();

    const progress = await request(api.app).get(`/api/v1/walls/${floor.wallId}/progress`).set('Authorization', ana.auth).expect(200);
    // Order 1: 4 - 1 confirmed; order 4: 3, its scan waiting counts as left; 2 and 3: none left.
    expect(progress.body).toMatchObject({ unitsLeft: 6, ordersInSlots: 4 });
    expect(progress.body.completeSlots.map((c: { orderId: number }) => c.orderId)).toEqual(expect.arrayContaining([2, 3]));
    expect(Date.now() - Date.parse(progress.body.oldestCompleteSince)).toBeGreaterThanOrEqual(25 * 60_000 - 5000);

    const page = await browser.newPage({ viewport: { width: 1920, height: 1080 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await openHub(page);

    // The bar: units left; the oldest Complete slot, how long it has waited, in red past 20 minutes.
    await page.waitForSelector('#left:text-is("6 units left to sort")', { timeout: STEP_MS });
    expect(await page.textContent('#waiting')).toBe(`2 complete · oldest slot ${tee.position}, 25 min`);
    expect(await page.getAttribute('#waiting', 'data-state')).toBe('late');
    expect(await page.textContent(`.slot[data-crc="${tee.crc}"] .who`)).toBe('Complete · 25 min');

    // The feed on open: the wall's events before the page opened, newest first, each once.
    const opened = await feedTexts(page);
    expect(opened.length).toBeGreaterThanOrEqual(8);
    expect(opened.some((t) => t.includes(`complete: ready for the shipper (order 2)`))).toBe(true);
    expect(opened.some((t) => t.includes('scanned SOCKS'))).toBe(true);
    const openedIds = await feedIds(page);
    expect(openedIds).toHaveLength(opened.length);
    expect(new Set(openedIds).size).toBe(openedIds.length);
    await page.screenshot({ path: join(ARTIFACTS, 'hub-shift-open.png') });

    // Live from there: a confirm takes units off the bar and adds one line to the feed.
    await confirm(socks.id, ben.auth).expect(200);
    await page.waitForSelector('#left:text-is("5 units left to sort")', { timeout: STEP_MS });
    await page.waitForSelector('#feed li >> nth=0 >> text=put 1 × SOCKS', { timeout: STEP_MS });

    // A wrong slot: stripes and a ✕ on the scanned slot, nothing a sorter's color looks like.
    const mug2 = (await scan(api, ana.auth, anaToken, 'MUG')).body;
    const wrong = floor.slots.find((s) => s.position === 12)!;
    await confirm(mug2.id, ana.auth, `A-${wrong.crc}`).expect(422);
    const flashing = `.slot[data-crc="${wrong.crc}"].flash-wrong`;
    await page.waitForSelector(flashing, { timeout: STEP_MS });
    const look = await page.evaluate((sel) => {
      const node = document.querySelector(sel);
      return { mark: getComputedStyle(node, '::after').content, animation: getComputedStyle(node).animationName };
    }, flashing);
    expect(look).toEqual({ mark: '"✕ 12"', animation: 'flash-wrong' });
    const wrongChip = await page.evaluate(() => {
      const chip = getComputedStyle(document.querySelector('.chip.wrong b')) as unknown as { backgroundImage: string; backgroundColor: string };
      return { image: chip.backgroundImage, color: chip.backgroundColor };
    });
    expect(wrongChip.image).toContain('repeating-linear-gradient');
    expect(SORTER_HEX.map(rgb)).not.toContain(wrongChip.color);
    await page.screenshot({ path: join(ARTIFACTS, 'hub-shift-wrong-slot.png') });
    await page.waitForSelector('#feed li.bad:has-text("Wrong slot")', { timeout: STEP_MS });

    // A reload: the same feed comes back (the last events), and goes on live.
    await relayed();
    const before = await feedTexts(page);
    await page.reload();
    await page.waitForSelector('#live[data-state=on]', { timeout: STEP_MS });
    await waitFor(async () => (await feedTexts(page))[0] === before[0], { timeoutMs: STEP_MS, what: 'the feed to come back after a reload' });
    const after = await feedTexts(page);
    expect(after.slice(0, 10)).toEqual(before.slice(0, 10));
    const afterIds = await feedIds(page);
    expect(afterIds).toHaveLength(after.length);
    expect(new Set(afterIds).size).toBe(afterIds.length);
    await confirm(mug2.id, ana.auth).expect(200);
    await page.waitForSelector('#left:text-is("4 units left to sort")', { timeout: STEP_MS });
    expect((await feedTexts(page)).length).toBe(Math.min(60, after.length + 1));
    await page.screenshot({ path: join(ARTIFACTS, 'hub-shift-reloaded.png') });
    expect(errors).toEqual([]);
    await page.close();
  });
});
