import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import request from 'supertest';
import type { Browser, Page } from 'playwright-core';
import { PAGES_CSP } from '../../services/api/http/pages';
import { startTestApi, uniqueSuffix, type TestApi } from '../support/test-api';
import { buildFloor, type Floor } from '../support/sorting-floor';
import { launchChromium, servePages, type PagesServer } from '../support/pages-server';

const ARTIFACTS = join(__dirname, '..', 'artifacts');
// Generous bounds for a loaded 2-core machine; each wait ends as soon as the DOM shows the state.
const STEP_MS = 15_000;
jest.setTimeout(120_000);

// These run in the browser; the project compiles without the DOM library, so name what they use.
type Styled = { style: { gridColumn: string; gridRow: string; backgroundColor: string } };
declare const document: { activeElement: { id: string } | null };
declare function getComputedStyle(e: unknown): { fontSize: string };

describe('hub and sorter pages in a browser', () => {
  let api: TestApi;
  let pages: PagesServer;
  let base: string;
  let browser: Browser;
  let floor: Floor;
  const upgraded: Duplex[] = [];
  let blockUpgrades = false;
  const sorter = { email: `sorter-${uniqueSuffix()}@example.com`, password: 'sorter-pass-1' };

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    api = await startTestApi({ workers: ['sorting', 'outbox'] });
    // Runs before the event stream's own upgrade handler: records the sockets (to drop them later)
    // and, while blocked, refuses new ones, as a network outage would.
    pages = await servePages(api, {
      beforeUpgrade: (_req, socket) => {
        if (blockUpgrades) socket.destroy();
        else upgraded.push(socket);
      },
    });
    base = pages.base;
    floor = await buildFloor(api, {
      slots: 12,
      orders: [
        { id: 1, items: [{ sku: 'SKU-A', qty: 1 }] },
        { id: 2, items: [{ sku: 'SKU-B', qty: 2 }] },
      ],
    });
    const admin = floor.tenant.auth;
    await request(api.app).patch(`/api/v1/walls/${floor.wallId}`).set('Authorization', admin)
      .send({ segmentRows: 2, segmentColumns: 3, flowDirection: 'LeftToRight' }).expect(200);
    await request(api.app).post('/api/v1/admin/employees').set('Authorization', admin)
      .send({ ...sorter, firstName: 'Sam', lastName: 'Sorter', roles: ['Sorter'] }).expect(200);
    await request(api.app).put('/api/v1/admin/security/pin').set('Authorization', admin).send({ pin: '4321', enforcement: 'server' }).expect(200);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await pages?.close();
    await api?.close();
  });

  async function signIn(page: Page, path: string, email: string, password: string): Promise<void> {
    await page.goto(`${base}${path}`);
    await page.fill('#sign-in input[name=username]', email);
    await page.fill('#sign-in input[name=password]', password);
    await page.click('#sign-in button[type=submit]');
  }

  it('serves both pages with a strict Content-Security-Policy and no inline script', async () => {
    for (const path of ['/hub', '/sorter']) {
      const res = await request(api.app).get(path).expect(200);
      expect(res.headers['content-security-policy']).toBe(PAGES_CSP);
      expect(res.headers['content-security-policy']).toContain("script-src 'self'");
      expect(res.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
      expect(res.text).not.toMatch(/\son\w+=/);
    }
    await request(api.app).get('/hub/assets/hub.js').expect(200).expect('content-type', /javascript/);
    await request(api.app).get('/hub/assets/../../package.json').expect(404);
  });

  it('a scan on the sorter page lights its slot on the hub within a second; confirm and completion follow', async () => {
    const hub = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const phone = await browser.newPage({ viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true });
    const pageErrors: string[] = [];
    for (const p of [hub, phone]) {
      p.on('pageerror', (e) => pageErrors.push(e.message));
      // Console errors include CSP violations. Expected: the refusals the test provokes (HTTP 4xx) and
      // the WebSocket attempts refused during the outage it simulates.
      const expected = /^(Failed to load resource: the server responded with a status of 4|WebSocket connection to .* failed)/;
      p.on('console', (m) => m.type() === 'error' && !expected.test(m.text()) && pageErrors.push(m.text()));
    }

    await signIn(hub, '/hub', floor.tenant.adminEmail, floor.tenant.password);
    await hub.waitForSelector('#grid .slot >> nth=11', { timeout: STEP_MS });
    await hub.waitForSelector('#live[data-state=on]', { timeout: STEP_MS });
    // Laid out as the wall says: 2 × 3 segments side by side, so slot 4 starts row 2 and slot 7 the second segment.
    const cell = (n: number) => hub.$eval(`.slot[data-position="${n}"]`, (e) => [(e as unknown as Styled).style.gridColumn, (e as unknown as Styled).style.gridRow]);
    expect(await cell(4)).toEqual(['1', '2']);
    expect(await cell(7)).toEqual(['4', '1']);

    await signIn(phone, '/sorter', sorter.email, sorter.password);
    await phone.click('#wall-list button.wall', { timeout: STEP_MS });
    await phone.waitForSelector('#who:has-text("You are Red")', { timeout: STEP_MS });
    await hub.waitForSelector('#sorters li:has-text("Red")', { timeout: STEP_MS });

    // The latency is taken inside the browsers (one machine clock), so the test driver's own round
    // trips on a busy machine do not count: from the sorter page showing the slot to the hub lighting it.
    await hub.evaluate(`window.litAt = {}; new MutationObserver(() => {
      for (const n of document.querySelectorAll('.slot.lit')) window.litAt[n.dataset.crc] ??= Date.now();
    }).observe(document.getElementById('grid'), { subtree: true, attributes: true, attributeFilter: ['class'] })`);
    await phone.evaluate(`new MutationObserver(() => {
      if (document.getElementById('target').dataset.state === 'put') window.shownAt ??= Date.now();
    }).observe(document.getElementById('target'), { attributes: true })`);

    // The scan field has the focus: the wedge scanner "types" the code and Enter.
    expect(await phone.evaluate(() => document.activeElement?.id)).toBe('scan');
    await phone.keyboard.type('SKU-A');
    await phone.keyboard.press('Enter');
    await phone.waitForSelector('#target[data-state=put]', { timeout: STEP_MS });
    const position = Number(await phone.textContent('#slot-no'));
    const crc = floor.slots.find((s) => s.position === position)!.crc;
    await hub.waitForSelector(`.slot.lit[data-crc="${crc}"]`, { timeout: STEP_MS });
    const litAfterMs = (await hub.evaluate(`window.litAt[${JSON.stringify(crc)}]`)) as number - ((await phone.evaluate('window.shownAt')) as number);
    expect(await hub.$eval(`.slot[data-crc="${crc}"]`, (e) => (e as unknown as Styled).style.backgroundColor)).toBe('rgb(229, 57, 53)');
    expect(await phone.$eval('#target', (e) => (e as unknown as Styled).style.backgroundColor)).toBe('rgb(229, 57, 53)');
    expect(litAfterMs).toBeLessThan(1000);
    await hub.screenshot({ path: join(ARTIFACTS, 'hub-lit.png') });
    await phone.screenshot({ path: join(ARTIFACTS, 'sorter-put.png') });

    // A wrong slot is refused in large type with the service's detail; the scan stays pending.
    const other = floor.slots.find((s) => s.crc !== crc)!;
    await phone.keyboard.type(`A-${other.crc}`);
    await phone.keyboard.press('Enter');
    await phone.waitForSelector('#refusal:not([hidden])', { timeout: STEP_MS });
    expect(await phone.textContent('#refusal-detail')).toMatch(/\S/);
    expect(parseFloat(await phone.$eval('#refusal', (e) => getComputedStyle(e).fontSize))).toBeGreaterThanOrEqual(20);
    await phone.screenshot({ path: join(ARTIFACTS, 'sorter-refusal.png') });
    // Another product before confirming is refused on the page: one unit at a time.
    await phone.keyboard.type('SKU-B');
    await phone.keyboard.press('Enter');
    await phone.waitForSelector(`#refusal-title:has-text("Confirm slot ${position} first")`, { timeout: STEP_MS });

    // The right slot's A- barcode confirms; the order (one unit) is complete: the shipper side shows it.
    await phone.keyboard.type(`A-${crc}`);
    await phone.keyboard.press('Enter');
    await phone.waitForSelector('#target[data-state=idle]', { timeout: STEP_MS });
    expect(await phone.textContent('#hint')).toContain(`In slot ${position}`);
    await hub.waitForSelector(`.slot[data-crc="${crc}"][data-status=Complete]:not(.lit)`, { timeout: STEP_MS });
    await hub.waitForSelector('#feed li[data-type="sort-box.completed"]', { timeout: STEP_MS });
    await hub.screenshot({ path: join(ARTIFACTS, 'hub-complete.png') });
    await phone.screenshot({ path: join(ARTIFACTS, 'sorter-confirmed.png') });

    // The shipper releases it (B- scan through the API); the hub shows it empty again.
    await request(api.app).post(`/api/v1/sort-boxes/B-${crc}/release`).set('Authorization', floor.tenant.auth).expect(200);
    await hub.waitForSelector(`.slot[data-crc="${crc}"][data-status=Empty]`, { timeout: STEP_MS });

    // The hub's connection drops and stays down while the next scan happens: it comes back by
    // itself and catches up on the missed event (lastEventId), lighting the slot.
    blockUpgrades = true;
    for (const socket of upgraded) socket.destroy();
    await hub.waitForSelector('#live[data-state=off]', { timeout: STEP_MS });
    await phone.keyboard.type('SKU-B');
    await phone.keyboard.press('Enter');
    await phone.waitForSelector('#target[data-state=put]', { timeout: STEP_MS });
    const positionB = Number(await phone.textContent('#slot-no'));
    const crcB = floor.slots.find((s) => s.position === positionB)?.crc;
    expect(crcB).toBeDefined();
    expect(await hub.$(`.slot.lit[data-crc="${crcB}"]`)).toBeNull();
    blockUpgrades = false;
    // The hub waits up to 10 s between attempts (backoff), so this wait is longer than the others.
    await hub.waitForSelector('#live[data-state=on]', { timeout: 30_000 });
    await hub.waitForSelector(`.slot.lit[data-crc="${crcB}"]`, { timeout: STEP_MS });
    await hub.screenshot({ path: join(ARTIFACTS, 'hub.png') });
    await phone.screenshot({ path: join(ARTIFACTS, 'sorter.png') });

    // Cancel asks for the PIN: a wrong one is refused, the right one cancels; the slot goes dark.
    await phone.click('#cancel');
    await phone.fill('#pin', '0000');
    await phone.press('#pin', 'Enter');
    await phone.waitForSelector('#refusal:not([hidden])', { timeout: STEP_MS });
    expect(await phone.textContent('#refusal-title')).toBe('Wrong PIN');
    expect(await phone.getAttribute('#target', 'data-state')).toBe('put');
    await phone.click('#cancel');
    await phone.fill('#pin', '4321');
    await phone.screenshot({ path: join(ARTIFACTS, 'sorter-pin.png') });
    await phone.press('#pin', 'Enter');
    await phone.waitForSelector('#target[data-state=idle]', { timeout: STEP_MS });
    await hub.waitForSelector(`.slot[data-crc="${crcB}"]:not(.lit)`, { timeout: STEP_MS });
    expect(await phone.evaluate(() => document.activeElement?.id)).toBe('scan');

    // Swap: the next A- scan moves the order to that empty slot; the hub lights the new one.
    await phone.keyboard.type('SKU-B');
    await phone.keyboard.press('Enter');
    await phone.waitForSelector('#target[data-state=put]', { timeout: STEP_MS });
    const from = Number(await phone.textContent('#slot-no'));
    const to = floor.slots.find((s) => s.position !== from && s.position !== position)!;
    await phone.click('#swap');
    await phone.waitForSelector('#target[data-state=swap]', { timeout: STEP_MS });
    await phone.keyboard.type(`A-${to.crc}`);
    await phone.keyboard.press('Enter');
    await phone.waitForSelector(`#target[data-state=put] #slot-no:text-is("${to.position}")`, { timeout: STEP_MS });
    await hub.waitForSelector(`.slot.lit[data-crc="${to.crc}"]`, { timeout: STEP_MS });
    expect(await hub.$(`.slot.lit[data-position="${from}"]`)).toBeNull();

    expect(pageErrors).toEqual([]);
    await hub.close();
    await phone.close();
  });
});
