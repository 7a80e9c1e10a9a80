import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import type { Browser } from 'playwright-core';
import { launchChromium, servePages, type PagesServer } from '../support/pages-server';
import { startTestApi, uniqueSuffix, type TestApi } from '../support/test-api';
import { buildFloor, type Floor } from '../support/sorting-floor';

/*
 * The sorter page on a floor device (README "The hub and sorter pages"): the field says what it
 * expects next; a scan still waiting comes back after a reload; a PIN set after the sorter connected
 * shows the PIN box when the service asks for it; leaving with a scan waiting warns and offers to
 * cancel it; a completed order gives a cue. Screenshots in test/artifacts/ (sorter-floor-*.png).
 */

const ARTIFACTS = join(__dirname, '..', 'artifacts');
const STEP_MS = 15_000;
jest.setTimeout(120_000);

describe('the sorter page on a floor device', () => {
  let api: TestApi;
  let pages: PagesServer;
  let base: string;
  let browser: Browser;
  let floor: Floor;
  const sorter = { email: `floor-${uniqueSuffix()}@example.com`, password: 'sorter-pass-1' };

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    api = await startTestApi({ workers: ['sorting'] });
    pages = await servePages(api);
    base = pages.base;
    floor = await buildFloor(api, { slots: 6, orders: [{ id: 1, items: [{ sku: 'SKU-A', qty: 5 }] }, { id: 2, items: [{ sku: 'SKU-B', qty: 1 }] }] });
    await request(api.app).post('/api/v1/admin/employees').set('Authorization', floor.tenant.auth).send({ ...sorter, firstName: 'Flo', lastName: 'Orr', roles: ['Sorter'] }).expect(200);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await pages?.close();
    await api?.close();
  });

  it('says what it expects, restores a waiting scan, asks for a PIN set meanwhile, warns before leaving, cues a complete order', async () => {
    const phone = await browser.newPage({ viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true });
    const errors: string[] = [];
    phone.on('pageerror', (e) => errors.push(e.message));
    await phone.goto(`${base}/sorter`);
    await phone.fill('#sign-in input[name=username]', sorter.email);
    await phone.fill('#sign-in input[name=password]', sorter.password);
    await phone.click('#sign-in button[type=submit]');
    await phone.click('#wall-list button.wall', { timeout: STEP_MS });
    await phone.waitForSelector('#who:has-text("You are Red")', { timeout: STEP_MS });
    expect(await phone.textContent('#expect')).toBe('Scan a product');
    expect(await phone.getAttribute('#scan', 'placeholder')).toBe('Scan a product');

    // A product: now the field wants the slot's A- code, and says so.
    await phone.keyboard.type('SKU-A');
    await phone.keyboard.press('Enter');
    await phone.waitForSelector('#target[data-state=put]', { timeout: STEP_MS });
    const position = Number(await phone.textContent('#slot-no'));
    const crc = floor.slots.find((s) => s.position === position)!.crc;
    expect(await phone.textContent('#expect')).toBe(`Scan slot ${position}'s code A-${crc}`);
    expect(await phone.getAttribute('#scan', 'placeholder')).toBe(`Scan slot ${position}'s code A-${crc}`);
    await phone.screenshot({ path: join(ARTIFACTS, 'sorter-floor-expect-slot.png') });

    // A reload: the scan still waiting shows again, in the sorter's color.
    await phone.reload();
    await phone.waitForSelector(`#target[data-state=put] #slot-no:text-is("${position}")`, { timeout: STEP_MS });
    expect(await phone.textContent('#expect')).toContain(`A-${crc}`);

    // The company sets a PIN, enforced by the service, after this sorter connected: Cancel meets
    // pin-required, and the page shows the PIN box (its length read again) instead of a bare refusal.
    await request(api.app).put('/api/v1/admin/security/pin').set('Authorization', floor.tenant.auth).send({ pin: '2468', enforcement: 'server' }).expect(200);
    await phone.click('#cancel');
    await phone.waitForSelector('#pin-form:not([hidden])', { timeout: STEP_MS });
    expect(await phone.textContent('#pin-why')).toContain('PIN is now needed');
    expect(await phone.getAttribute('#pin', 'maxlength')).toBe('4');
    await phone.screenshot({ path: join(ARTIFACTS, 'sorter-floor-pin-required.png') });
    await phone.fill('#pin', '2468');
    await phone.press('#pin', 'Enter');
    await phone.waitForSelector('#target[data-state=idle]', { timeout: STEP_MS });
    expect(await phone.textContent('#hint')).toContain('Scan cancelled');

    // Leaving with a scan waiting: a warning; "Stay" keeps it; "Cancel the scan and leave" cancels (with the PIN) and leaves.
    await phone.keyboard.type('SKU-A');
    await phone.keyboard.press('Enter');
    await phone.waitForSelector('#target[data-state=put]', { timeout: STEP_MS });
    await phone.click('#leave');
    await phone.waitForSelector('#leave-warning:not([hidden])', { timeout: STEP_MS });
    expect(await phone.textContent('#leave-text')).toMatch(/is waiting in slot \d+/);
    await phone.screenshot({ path: join(ARTIFACTS, 'sorter-floor-leave-warning.png') });
    await phone.click('#leave-stay');
    await phone.waitForSelector('#leave-warning[hidden]', { state: 'attached', timeout: STEP_MS });
    expect(await phone.getAttribute('#target', 'data-state')).toBe('put');
    await phone.click('#leave');
    await phone.click('#leave-cancel');
    await phone.waitForSelector('#pin-form:not([hidden])', { timeout: STEP_MS });
    await phone.fill('#pin', '2468');
    await phone.press('#pin', 'Enter');
    await phone.waitForSelector('#walls:not([hidden])', { timeout: STEP_MS });
    const pending = await request(api.app).get(`/api/v1/walls/${floor.wallId}/pending-items`).set('Authorization', floor.tenant.auth);
    expect(pending.body).toEqual([]);

    // Back on the wall: an order of one unit, confirmed: the complete cue.
    await phone.click('#wall-list button.wall', { timeout: STEP_MS });
    await phone.waitForSelector('#sorting:not([hidden])', { timeout: STEP_MS });
    await phone.keyboard.type('SKU-B');
    await phone.keyboard.press('Enter');
    await phone.waitForSelector('#target[data-state=put]', { timeout: STEP_MS });
    const b = Number(await phone.textContent('#slot-no'));
    const crcB = floor.slots.find((s) => s.position === b)!.crc;
    await phone.keyboard.type(`A-${crcB}`);
    await phone.keyboard.press('Enter');
    await phone.waitForSelector('#complete:not([hidden])', { timeout: STEP_MS });
    expect(await phone.textContent('#complete-detail')).toContain(`Order 2 is complete in slot ${b}`);
    expect(await phone.textContent('#expect')).toBe('Scan a product');
    await phone.screenshot({ path: join(ARTIFACTS, 'sorter-floor-complete.png') });
    expect(errors).toEqual([]);
    await phone.close();
  });
});
