import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, servePages, type PagesServer } from '../support/pages-server';
import { startTestApi, waitFor, type TestApi } from '../support/test-api';
import { buildFloor, connect, scan, type Floor } from '../support/sorting-floor';

/*
 * The hub as a wall display (README "The hub and sorter pages"): on a 1080p screen the grid fills the
 * screen and reads from two meters; Sorting and Complete are fills no sorter color looks like; two
 * sorters in one slot both show, by name; a wrong slot flashes and a refusal is in the feed; device
 * state shows; lit slots come back after a reload. Screenshots go to test/artifacts/ (hub-wall-*.png).
 */

const ARTIFACTS = join(__dirname, '..', 'artifacts');
const STEP_MS = 15_000;
jest.setTimeout(120_000);

declare const document: { querySelector(s: string): unknown; querySelectorAll(s: string): ArrayLike<unknown> };
declare function getComputedStyle(e: unknown): { fontSize: string; backgroundColor: string; backgroundImage: string };
type Box = { getBoundingClientRect(): { height: number; width: number }; scrollWidth: number; clientWidth: number; scrollHeight: number; clientHeight: number };

const SORTER_HEX = ['#E53935', '#1E88E5', '#FDD835', '#43A047', '#D81B60', '#00ACC1'];

describe('the hub as a wall display', () => {
  let api: TestApi;
  let pages: PagesServer;
  let base: string;
  let browser: Browser;
  let floor: Floor;

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    api = await startTestApi({ workers: ['sorting', 'outbox'] });
    pages = await servePages(api);
    base = pages.base;
    const products = ['MUG', 'TEE', 'CAP', 'SOCKS', 'BOTTLE', 'LAMP'].map((sku) => ({ sku }));
    floor = await buildFloor(api, {
      slots: 24,
      products,
      orders: [
        { id: 1, items: [{ sku: 'MUG', qty: 3 }] },
        { id: 2, items: [{ sku: 'TEE', qty: 1 }] },
        { id: 3, items: [{ sku: 'CAP', qty: 1 }] },
        { id: 4, items: [{ sku: 'SOCKS', qty: 2 }] },
        { id: 5, items: [{ sku: 'BOTTLE', qty: 1 }, { sku: 'LAMP', qty: 1 }] },
      ],
    });
    await request(api.app).patch(`/api/v1/walls/${floor.wallId}`).set('Authorization', floor.tenant.auth).send({ segmentRows: 4, segmentColumns: 6, name: 'Jackson St A' }).expect(200);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await pages?.close();
    await api?.close();
  });

  async function openHub(page: Page): Promise<void> {
    await page.goto(`${base}/hub?wall=${floor.wallId}`);
    await page.fill('#sign-in input[name=username]', floor.tenant.adminEmail);
    await page.fill('#sign-in input[name=password]', floor.tenant.password);
    await page.click('#sign-in button[type=submit]');
    await page.waitForSelector('#grid .slot >> nth=23', { timeout: STEP_MS });
    await page.waitForSelector('#live[data-state=on]', { timeout: STEP_MS });
  }

  it('reads from across the room at 1920×1080 and fits a phone at 360×740', async () => {
    // A floor in the middle of a shift: three sorters with names, two of them waiting in one slot,
    // sorting slots, a complete one; a light controller online, one offline.
    const em = api.runtime.orm.em.fork();
    const people = [
      ['Ana', 'Ruiz'],
      ['Ben', 'Okafor'],
      ['Chloé', 'Martin'],
    ];
    const sorters = [];
    for (let i = 0; i < people.length; i++) {
      const s = await floor.sorter(i + 1);
      await em.execute('update employee set first_name = ?, last_name = ? where id = ?', [people[i]![0], people[i]![1], s.userId]);
      sorters.push({ ...s, token: (await connect(api, floor, s.auth)).body.token as string });
    }
    const [ana, ben, chloe] = sorters as [(typeof sorters)[0], (typeof sorters)[0], (typeof sorters)[0]];
    const tee = (await scan(api, ana.auth, ana.token, 'TEE')).body;
    await request(api.app).patch(`/api/v1/sort-box-items/${tee.id}/confirm`).set('Authorization', ana.auth).expect(200); // order 2 complete
    const mug1 = (await scan(api, ana.auth, ana.token, 'MUG')).body;
    const mug2 = (await scan(api, ben.auth, ben.token, 'MUG')).body; // two sorters in one slot
    expect(mug2.crc).toBe(mug1.crc);
    const socks = (await scan(api, chloe.auth, chloe.token, 'SOCKS')).body;
    await request(api.app).patch(`/api/v1/sort-box-items/${socks.id}/confirm`).set('Authorization', chloe.auth).expect(200); // sorting, nothing pending
    const bottle = (await scan(api, chloe.auth, chloe.token, 'BOTTLE')).body;
    const serials = (await request(api.app).get(`/api/v1/walls/${floor.wallId}`).set('Authorization', floor.tenant.auth)).body.slots.map((s: { serialNumber: string }) => s.serialNumber);
    await em.execute(
      `insert into light_controller (client_id, controller_id, driver, online, serial_numbers, last_seen_at) values (?, 'left-half', 'mqtt', true, string_to_array(?, ','), now()), (?, 'right-half', 'tcp', false, string_to_array(?, ','), now() - interval '5 minutes')`,
      [floor.tenant.clientId, serials.slice(0, 12).join(','), floor.tenant.clientId, serials.slice(12).join(',')],
    );

    const page = await browser.newPage({ viewport: { width: 1920, height: 1080 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await openHub(page);
    // Restored from pendingItems at load: the lit slots, both sorters of the shared one, by name.
    const shared = `.slot[data-crc="${mug1.crc}"]`;
    await page.waitForSelector(`${shared}.lit.split`, { timeout: STEP_MS });
    expect(await page.textContent(`${shared} .who`)).toBe('Ana Ruiz + Ben Okafor · 2 units');
    await page.waitForSelector(`.slot[data-crc="${bottle.crc}"].lit`, { timeout: STEP_MS });
    await page.waitForSelector(`.slot[data-crc="${tee.crc}"][data-status=Complete]`, { timeout: STEP_MS });
    await page.waitForSelector('#sorters li:has-text("Chloé Martin")', { timeout: STEP_MS });
    await page.waitForSelector('#devices[data-state=offline]', { timeout: STEP_MS });
    expect(await page.textContent('#devices')).toContain('1 of 2 offline');
    expect(await page.$$eval('.slot.no-light', (n) => n.length)).toBe(12);

    // A wrong slot: flashed on the wall, and in the feed in words.
    const wrong = floor.slots.find((s) => s.position === 20)!;
    await request(api.app).patch(`/api/v1/sort-box-items/${bottle.id}/confirm`).set('Authorization', chloe.auth).send({ barcode: `A-${wrong.crc}` }).expect(422);
    await page.waitForSelector(`.slot[data-crc="${wrong.crc}"].flash-wrong`, { timeout: STEP_MS });
    await page.waitForSelector(`.slot[data-crc="${bottle.crc}"].flash-right`, { timeout: STEP_MS });
    await page.waitForSelector(`#feed li.bad:has-text("Wrong slot: Chloé Martin scanned slot 20")`, { timeout: STEP_MS });
    await page.screenshot({ path: join(ARTIFACTS, 'hub-wall-1080p.png') });

    // Measured, not only looked at: the grid fills the screen; numbers and names are large; nothing is cut.
    const m = await page.evaluate(() => {
      const grid = document.querySelector('#grid') as Box;
      const slot = document.querySelector('.slot') as Box;
      const who = document.querySelector('.slot.split .who') as Box;
      return {
        gridHeight: grid.getBoundingClientRect().height,
        number: parseFloat(getComputedStyle(document.querySelector('.slot .num')).fontSize),
        name: parseFloat(getComputedStyle(document.querySelector('.slot.split .who')).fontSize),
        slotWidth: slot.getBoundingClientRect().width,
        whoCut: who.scrollHeight > who.clientHeight + 1,
        feed: parseFloat(getComputedStyle(document.querySelector('#feed li')).fontSize),
      };
    });
    expect(m.gridHeight / 1080).toBeGreaterThan(0.7);
    expect(m.number).toBeGreaterThanOrEqual(60);
    expect(m.name).toBeGreaterThanOrEqual(18);
    expect(m.whoCut).toBe(false);
    expect(m.feed).toBeGreaterThanOrEqual(17);
    // Sorting and Complete: patterned or black, never a sorter's flat color.
    const fills = await page.evaluate(() =>
      ['Sorting', 'Complete'].map((s) => {
        const style = getComputedStyle(document.querySelector(`.slot[data-status="${s}"]:not(.lit)`));
        return { color: style.backgroundColor, image: style.backgroundImage };
      }),
    );
    const hexToRgb = (h: string) => `rgb(${parseInt(h.slice(1, 3), 16)}, ${parseInt(h.slice(3, 5), 16)}, ${parseInt(h.slice(5, 7), 16)})`;
    for (const f of fills) expect(SORTER_HEX.map(hexToRgb)).not.toContain(f.color);
    expect(fills[0]!.image).toContain('repeating-linear-gradient');
    expect(fills[1]!.color).toBe('rgb(17, 17, 17)');
    expect(await page.textContent(`.slot[data-crc="${tee.crc}"] .mark`)).toBe('✓');

    // A light test from the hub's button shows its banner.
    await page.click('#light-test');
    await page.waitForSelector('#mode:not([hidden])', { timeout: STEP_MS });
    expect(await page.textContent('#mode-text')).toContain('Light test until');
    await page.screenshot({ path: join(ARTIFACTS, 'hub-wall-light-test.png') });
    await page.click('#mode-end');
    await page.waitForSelector('#mode[hidden]', { state: 'attached', timeout: STEP_MS });

    // A reload lights the same slots again.
    await page.reload();
    await page.waitForSelector(`${shared}.lit.split`, { timeout: STEP_MS });
    await page.waitForSelector(`.slot[data-crc="${bottle.crc}"].lit`, { timeout: STEP_MS });

    const phone = await browser.newPage({ viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true });
    phone.on('pageerror', (e) => errors.push(e.message));
    await openHub(phone);
    await phone.waitForSelector(`${shared}.lit.split`, { timeout: STEP_MS });
    const overflow = await phone.evaluate(() => (document.querySelector('body') as Box).scrollWidth);
    expect(overflow).toBeLessThanOrEqual(360);
    await phone.screenshot({ path: join(ARTIFACTS, 'hub-wall-phone.png'), fullPage: true });
    expect(errors).toEqual([]);
    await waitFor(() => true);
    await page.close();
    await phone.close();
  });
});
