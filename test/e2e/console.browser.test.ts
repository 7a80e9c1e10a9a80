import { readFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import type { Browser, Page } from 'playwright-core';
import { PAGES_CSP } from '../../services/api/http/pages';
import { crc32Hex } from '../../shared/domain/crc';
import { addProducts, addWarehouse } from '../support/fixtures';
import { decodePdfPages } from '../support/pdf-barcodes';
import { launchChromium, servePages, type PagesServer } from '../support/pages-server';
import { newTenant, startTestApi, uniqueSuffix, type Tenant, type TestApi } from '../support/test-api';

const ARTIFACTS = join(__dirname, '..', 'artifacts');
// Generous bounds for a loaded 2-core machine; each wait ends as soon as the page shows the state.
const STEP_MS = 15_000;
jest.setTimeout(120_000);

// These run in the browser; the project compiles without the DOM library, so name what they use.
declare const document: { activeElement: { id: string } | null; querySelectorAll(s: string): { length: number } };

describe('the operator console in a browser', () => {
  let api: TestApi;
  let pages: PagesServer;
  let browser: Browser;
  let tenant: Tenant;
  let warehouseId: number;
  const sorter = { firstName: 'Sam', lastName: 'Sorter', email: `sam-${uniqueSuffix()}@example.com`, password: 'sorter-pass-1' };
  const serials = Array.from({ length: 6 }, (_, i) => `0xC0FFEE${uniqueSuffix()}${i + 1}`);

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    api = await startTestApi({ workers: ['sorting', 'outbox'] });
    pages = await servePages(api);
    tenant = await newTenant(api, 'Console');
    const em = api.runtime.orm.em.fork();
    warehouseId = (await addWarehouse(em, tenant.clientId)).id;
    await addProducts(em, tenant.clientId, [{ sku: 'MUG-1' }, { sku: 'CAP-1' }]);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await pages?.close();
    await api?.close();
  });

  async function signIn(page: Page, path: string, email: string, password: string): Promise<void> {
    await page.goto(`${pages.base}${path}`);
    await page.fill('#sign-in input[name=username]', email);
    await page.fill('#sign-in input[name=password]', password);
    await page.click('#sign-in button[type=submit]');
  }

  /** The notice line saying `text` (a confirmation, or a refusal with `kind` bad). */
  const notice = (page: Page, text: string, kind: 'ok' | 'bad' = 'ok') =>
    page.waitForSelector(`#notice[data-kind=${kind}]:has-text(${JSON.stringify(text)})`, { timeout: STEP_MS });

  it('is served like the other pages, with a strict Content-Security-Policy and no inline script', async () => {
    const res = await request(api.app).get('/console').expect(200);
    expect(res.headers['content-security-policy']).toBe(PAGES_CSP);
    expect(res.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(res.text).not.toMatch(/\son\w+=/);
    // The page's script and the modules of its tabs it imports.
    for (const script of ['console', 'console-ui', 'console-walls', 'console-employees', 'console-printers', 'console-webhooks', 'console-imports']) {
      await request(api.app).get(`/hub/assets/${script}.js`).expect(200).expect('content-type', /javascript/);
    }
  });

  it('sets up a wall from nothing: slots by scanning, a sorter, an imported order sorted on the sorter page, the slot labels', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, acceptDownloads: true });
    const pageErrors: string[] = [];
    page.on('pageerror', (e) => pageErrors.push(e.message));
    // Console errors include CSP violations; the 4xx the test provokes are expected.
    page.on('console', (m) => m.type() === 'error' && !/^Failed to load resource: the server responded with a status of 4/.test(m.text()) && pageErrors.push(m.text()));

    await signIn(page, '/console', tenant.adminEmail, tenant.password);
    await page.waitForSelector('#tabs:not([hidden]) [data-tab=imports]:not([hidden])', { timeout: STEP_MS });

    // A wall from nothing; the serial field then has the focus.
    await page.fill('#new-wall input[name=name]', 'Dock 7');
    await page.press('#new-wall input[name=name]', 'Enter');
    await notice(page, 'Wall Dock 7 is created');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('serial');

    // A hand scanner types each serial number and Enter, one after another, faster than the service
    // answers: each Enter attaches the next slot, in scan order, and the focus never leaves the field.
    for (const serial of serials) {
      await page.keyboard.type(serial);
      await page.keyboard.press('Enter');
    }
    await page.waitForFunction(() => document.querySelectorAll('#slots tr').length === 6, undefined, { timeout: STEP_MS });
    await notice(page, 'Slot 6 attached');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('serial');
    const rows = await page.$$eval('#slots tr', (trs) => trs.map((tr) => [...(tr as unknown as { cells: { textContent: string }[] }).cells].slice(0, 3).map((c) => c.textContent)));
    expect(rows).toEqual(serials.map((s, i) => [String(i + 1), crc32Hex(s), s]));
    // The same serial again changes nothing and says so.
    await page.keyboard.type(serials[0]!);
    await page.keyboard.press('Enter');
    await notice(page, 'is already slot 1');
    await page.screenshot({ path: join(ARTIFACTS, 'console-walls.png') });

    // A refusal shows the service's detail: the name of a wall that exists.
    await page.fill('#new-wall input[name=name]', 'dock 7');
    await page.press('#new-wall input[name=name]', 'Enter');
    await notice(page, 'Dock 7', 'bad');
    expect(await page.textContent('#notice')).toMatch(/already|taken|in use/i);

    // A sorter employee.
    await page.click('[data-tab=employees]');
    await page.fill('#new-employee input[name=firstName]', sorter.firstName);
    await page.fill('#new-employee input[name=lastName]', sorter.lastName);
    await page.fill('#new-employee input[name=email]', sorter.email);
    await page.fill('#new-employee input[name=password]', sorter.password);
    await page.click('#new-employee button[type=submit]');
    await notice(page, 'Sam Sorter is added (Sorter)');
    await page.waitForSelector(`#employees tr[data-email="${sorter.email}"]`, { timeout: STEP_MS });

    // Orders from a CSV: the dry run shows the bad row in a table and keeps Import off; the fixed file imports.
    const today = new Date().toISOString().slice(0, 10);
    const csv = (sku: string) =>
      'orderId,warehouseId,orderDate,shipToName,shipToStreet1,shipToCity,shipToPostalCode,shipToCountry,sku,qty\n' +
      `2001,${warehouseId},${today},"Smith, Ann",1 Main St,Omaha,68102,US,MUG-1,1\n` +
      `2002,${warehouseId},${today},Bo Lee,9 Elm Rd,Omaha,68104,US,${sku},1\n`;
    await page.click('[data-tab=imports]');
    await page.setInputFiles('#import input[name=file]', { name: 'orders.csv', mimeType: 'text/csv', buffer: Buffer.from(csv('NOPE-9')) });
    await page.waitForSelector('#problems tbody tr', { timeout: STEP_MS });
    const problems = await page.$$eval('#problems tbody tr', (trs) => trs.map((tr) => [...(tr as unknown as { cells: { textContent: string }[] }).cells].map((c) => c.textContent)));
    expect(problems).toEqual([['3', 'sku', 'unknown-sku', expect.stringContaining('NOPE-9')]]);
    expect(await page.isDisabled('#import-run')).toBe(true);
    await page.screenshot({ path: join(ARTIFACTS, 'console-import-problems.png') });
    await page.setInputFiles('#import input[name=file]', { name: 'orders-fixed.csv', mimeType: 'text/csv', buffer: Buffer.from(csv('CAP-1')) });
    await page.waitForSelector('#import-run:enabled', { timeout: STEP_MS });
    expect(await page.isVisible('#problems')).toBe(false);
    await page.click('#import-run');
    await notice(page, 'Imported orders-fixed.csv: 2 orders (2 new');
    expect((await request(api.app).get('/api/v1/orders/2002').set('Authorization', tenant.auth)).status).toBe(200);

    // A Sorter gets no console.
    const sorterConsole = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await signIn(sorterConsole, '/console', sorter.email, sorter.password);
    await sorterConsole.waitForSelector('#refused:not([hidden])', { timeout: STEP_MS });
    expect(await sorterConsole.isVisible('#tabs')).toBe(false);
    expect(await sorterConsole.textContent('#refused-detail')).toContain('signed in as Sorter');
    await sorterConsole.close();

    // The sorter sorts the order on the sorter page: the mug goes into slot 1, confirmed by its A- barcode.
    const phone = await browser.newPage({ viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true });
    await signIn(phone, '/sorter', sorter.email, sorter.password);
    await phone.click('#wall-list button.wall', { timeout: STEP_MS });
    await phone.waitForSelector('#who:has-text("You are Red")', { timeout: STEP_MS });
    await phone.keyboard.type('MUG-1');
    await phone.keyboard.press('Enter');
    await phone.waitForSelector('#target[data-state=put]', { timeout: STEP_MS });
    const position = Number(await phone.textContent('#slot-no'));
    const crc = crc32Hex(serials[position - 1]!);
    await phone.keyboard.type(`A-${crc}`);
    await phone.keyboard.press('Enter');
    await phone.waitForSelector('#target[data-state=idle]', { timeout: STEP_MS });

    // The console shows the slot Complete and the sorter connected; Disconnect ends the session.
    await page.click('[data-tab=walls]');
    await page.click('#walls button:has-text("Dock 7")');
    await page.waitForSelector(`#slots tr[data-crc="${crc}"]:has-text("Complete (order 2001)")`, { timeout: STEP_MS });
    await page.click('#sessions tr:has-text("Sam Sorter") button:has-text("Disconnect")');
    await notice(page, 'Sam Sorter is disconnected from wall Dock 7');
    expect(await page.$$('#sessions tr')).toHaveLength(0);
    await phone.waitForSelector('#wall-list button.wall', { timeout: STEP_MS });
    await phone.close();

    // The slot labels: a PDF whose barcodes decode to the slots' A- and B- codes.
    const [download] = await Promise.all([page.waitForEvent('download', { timeout: STEP_MS }), page.click('#print-labels')]);
    const pdf = readFileSync((await download.path())!);
    await notice(page, 'Slot labels of wall Dock 7: 6 label(s)');
    const [codes] = decodePdfPages(pdf);
    expect(codes).toContain(`A-${crc}`);
    expect(codes).toContain(`B-${crc}`);
    expect(codes).toHaveLength(12);
    await page.screenshot({ path: join(ARTIFACTS, 'console-wall.png') });

    // The other tabs' changes are confirmed too: a PIN, a printer and its test print, a webhook.
    await page.click('[data-tab=employees]');
    // The tab reads the PIN settings again when it opens (the usage figure last): the form is filled once
    // that read is done, or it would put the enforcement shown back over the one chosen.
    await page.waitForSelector('#usage:has-text("1 slot used in")', { timeout: STEP_MS });
    await page.fill('#pin input[name=pin]', '4321');
    await page.selectOption('#pin select[name=enforcement]', 'server');
    await page.click('#pin button[type=submit]');
    await notice(page, 'The PIN is set (4 characters), enforced by the service too');
    await page.waitForSelector('#pin-state:has-text("4 characters, enforced by the service too")', { timeout: STEP_MS });
    await page.screenshot({ path: join(ARTIFACTS, 'console-employees.png') });
    await page.click('[data-tab=printers]');
    await page.fill('#new-printer input[name=name]', 'Dock 7 back');
    await page.fill('#new-printer input[name=host]', '127.0.0.1');
    await page.fill('#new-printer input[name=port]', '9');
    await page.click('#new-printer button[type=submit]');
    await notice(page, 'Printer Dock 7 back (127.0.0.1:9) is registered');
    await page.click('#printers tr:has-text("Dock 7 back") button:has-text("Test print")');
    await notice(page, 'Test label for Dock 7 back queued as print job');
    await page.waitForSelector('#jobs tr:has-text("Queued")', { timeout: STEP_MS });
    await page.screenshot({ path: join(ARTIFACTS, 'console-printers.png') });
    await page.click('[data-tab=webhooks]');
    await page.fill('#new-webhook input[name=url]', 'https://oms.example.com/hooks/sorting');
    await page.click('#new-webhook button[type=submit]');
    await notice(page, 'Its signing secret, for the receiver: whsec_');
    await page.click('#webhooks tr:has-text("oms.example.com") button:has-text("Deliveries")');
    await page.waitForSelector('#no-deliveries:not([hidden])', { timeout: STEP_MS });

    expect(pageErrors).toEqual([]);
    await page.close();
  });
});
