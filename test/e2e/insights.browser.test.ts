import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import type { Browser, Page } from 'playwright-core';
import { CHART_LIBRARY, PAGES_CSP } from '../../services/api/http/pages';
import { EVENT_CONSUMERS } from '../support/event-consumers';
import { addSlots, addWall } from '../support/fixtures';
import { consumeAll, relayAll } from '../support/pipeline';
import { buildFloor, connect, scan, type Floor } from '../support/sorting-floor';
import { startTestApi, uniqueSuffix, type TestApi } from '../support/test-api';
import { launchChromium, servePages, type PagesServer } from '../support/pages-server';

/*
 * /insights in a browser: a Manager sees each chart drawn from the figures the insight operations
 * answer (the chart's data, its table and its CSV are compared with the API's answers), at 1280×800 and
 * on a tablet; a Sorter is refused. The figures come from a real floor: scans, confirms and refusals
 * through the API and the sorting worker, relayed and consumed by the statistics consumer.
 */

const ARTIFACTS = join(__dirname, '..', 'artifacts');
const STEP_MS = 15_000;
jest.setTimeout(120_000);

// These run in the browser; the project compiles without the DOM library, so name what they use.
type ChartData = { labels: unknown[]; datasets: { label: string; data: unknown[] }[] };
declare const Chart: { getChart(c: unknown): { data: ChartData } | undefined };
declare const document: { querySelectorAll(s: string): ArrayLike<unknown> };

interface Stats {
  from: string;
  to: string;
  scans: number;
  confirmedUnits: number;
  failedScans: number;
  sortedOrders: number;
  unitsPerHour: number;
  byUser: { userId: number; scans: number; units: number }[];
  refusalsByReason: { code: string; count: number }[];
}

describe('the insights page in a browser', () => {
  let api: TestApi;
  let pages: PagesServer;
  let browser: Browser;
  let floor: Floor;
  let otherWall: { id: number; name: string };
  let day: string;
  let query: { from: string; to: string };
  const manager = { email: `manager-${uniqueSuffix()}@example.com`, password: 'manager-pass-1' };
  const sorter = { email: `sorter-${uniqueSuffix()}@example.com`, password: 'sorter-pass-1' };
  let sorterId: number;
  const pageErrors: string[] = [];

  const dayOffset = (d: string, n: number) => new Date(Date.parse(`${d}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
  const get = async <T>(path: string, q: Record<string, string | number>): Promise<T> => {
    const res = await request(api.app).get(`/api/v1/insights/${path}`).query(q).set('Authorization', floor.tenant.auth).expect(200);
    return res.body as T;
  };

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    api = await startTestApi({ workers: ['sorting'] });
    pages = await servePages(api);
    floor = await buildFloor(api, {
      slots: 6,
      orders: [
        { id: 1, items: [{ sku: 'SKU-A', qty: 3 }] },
        { id: 2, items: [{ sku: 'SKU-B', qty: 1 }] },
      ],
    });
    const admin = floor.tenant.auth;
    // A second wall of the same warehouse, where nothing happened: its bars are zeros. Its long name, with
    // a comma and quotes, is shortened on the chart's axis and quoted in the CSV.
    const em = api.runtime.orm.em.fork();
    const wall = await addWall(em, floor.tenant.clientId, { name: `Dock ${uniqueSuffix()} north mezzanine, returns and re-sort lane "B"`, warehouseId: floor.warehouseId });
    await addSlots(em, floor.tenant.clientId, wall.id, 2);
    otherWall = { id: wall.id, name: wall.name };
    await request(api.app).post('/api/v1/admin/employees').set('Authorization', admin)
      .send({ ...manager, firstName: 'Maya', lastName: 'Manager', roles: ['Manager'] }).expect(200);
    const created = await request(api.app).post('/api/v1/admin/employees').set('Authorization', admin)
      .send({ ...sorter, firstName: 'Sam', lastName: 'Sorter', roles: ['Sorter'] }).expect(200);
    sorterId = created.body.id;

    // The floor: Sam confirms 2 + 1 units of SKU-A and 1 of SKU-B (order 2 complete), has two scans refused
    // and one confirm (5 units where the order needs 3).
    let overConfirmed = false;
    const sam = `Bearer ${(await request(api.app).post('/token').send({ username: sorter.email, password: sorter.password }).expect(200)).body.access_token}`;
    const { body: session } = await connect(api, floor, sam);
    const confirm = async (barcode: string, units?: number) => {
      const s = await scan(api, sam, session.token, barcode);
      expect(s.status).toBe(200);
      if (!overConfirmed) {
        overConfirmed = true;
        const over = await request(api.app).patch(`/api/v1/sort-box-items/${s.body.id}/confirm`).query({ units: 5 }).set('Authorization', sam);
        expect([over.status, over.body.code]).toEqual([422, 'units-exceed-remaining']);
      }
      await request(api.app).patch(`/api/v1/sort-box-items/${s.body.id}/confirm`).query(units ? { units } : {}).set('Authorization', sam).expect(200);
      return s.body as { createdAt: string };
    };
    const first = await confirm('SKU-A', 2);
    await confirm('SKU-A');
    await confirm('SKU-B');
    for (const code of ['NO-SUCH-PRODUCT', 'NOT-A-PRODUCT']) expect((await scan(api, sam, session.token, code)).status).toBe(422);
    await relayAll(api.runtime);
    await consumeAll(api.runtime, EVENT_CONSUMERS.stats);

    // The warehouse has no time zone: days are UTC days. The range spans the scans' day on both sides.
    const scanDay = first.createdAt.slice(0, 10);
    query = { from: dayOffset(scanDay, -2), to: dayOffset(scanDay, 1) };
    // The hours shown are those of a day with units (the confirms may fall after a midnight).
    day = (await get<{ daily: { date: string; count: number }[] }>('units/sorted', query)).daily.find((d) => d.count > 0)!.date;
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await pages?.close();
    await api?.close();
  });

  async function openAs(who: { email: string; password: string }, viewport: { width: number; height: number }, opts: { isMobile?: boolean; hasTouch?: boolean } = {}): Promise<Page> {
    const context = await browser.newContext({ viewport, timezoneId: 'UTC', acceptDownloads: true, ...opts });
    const page = await context.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    // Console errors include CSP violations; expected are the refusals the test provokes: a bad range (400), the Sorter (403).
    page.on('console', (m) => m.type() === 'error' && !/status of (400|403)/.test(m.text()) && pageErrors.push(m.text()));
    await page.goto(`${pages.base}/insights?${new URLSearchParams({ ...query, day, scope: 'all' })}`);
    await page.fill('#sign-in input[name=username]', who.email);
    await page.fill('#sign-in input[name=password]', who.password);
    await page.click('#sign-in button[type=submit]');
    return page;
  }

  const chartData = (page: Page, id: string) =>
    page.$eval(`[data-chart="${id}"] canvas`, (c) => {
      const chart = Chart.getChart(c);
      return chart ? { labels: chart.data.labels, datasets: chart.data.datasets.map((d) => ({ label: d.label, data: d.data })) } : null;
    });
  const tableRows = (page: Page, id: string) =>
    page.$$eval(`[data-chart="${id}"] tbody tr`, (rows) => rows.map((r) => Array.from((r as unknown as { cells: ArrayLike<{ textContent: string }> }).cells, (c) => c.textContent)));

  it('serves the page like the hub, and the chart library from node_modules', async () => {
    const res = await request(api.app).get('/insights').expect(200);
    expect(res.headers['content-security-policy']).toBe(PAGES_CSP);
    expect(res.text).toContain('<script src="/hub/vendor/chart.umd.min.js"></script>');
    expect(res.text).toContain('<script type="module" src="/hub/assets/insights.js"></script>');
    expect(res.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(res.text).not.toMatch(/https?:\/\//);
    const lib = await request(api.app).get('/hub/vendor/chart.umd.min.js').buffer(true).parse((r, cb) => {
      const chunks: Buffer[] = [];
      r.on('data', (c: Buffer) => chunks.push(c));
      r.on('end', () => cb(null, Buffer.concat(chunks)));
    }).expect(200);
    expect(lib.headers['content-type']).toMatch(/javascript/);
    expect(lib.headers['content-security-policy']).toBe(PAGES_CSP);
    expect(lib.headers['cache-control']).toBe('no-cache');
    expect((lib.body as Buffer).equals(readFileSync(CHART_LIBRARY))).toBe(true);
    await request(api.app).get('/hub/vendor/chart.umd.min.js').set('If-None-Match', lib.headers.etag!).expect(304);
  });

  it('a Manager sees each chart drawn from the figures the insight operations answer', async () => {
    const page = await openAs(manager, { width: 1280, height: 800 });
    await page.waitForSelector('#insights:not([hidden]) [data-chart="refusals"] canvas', { timeout: STEP_MS });
    await page.waitForFunction(() => document.querySelectorAll('body[data-loading]').length === 0, undefined, { timeout: STEP_MS });

    const stats = await get<Stats>('stats', { ...query, products: 0 });
    const hourly = await get<{ date: string; hourly: { hour: number; count: number }[] }>('daily/units', { date: day });
    const units = await get<{ daily: { date: string; count: number }[] }>('units/sorted', query);
    const orders = await get<{ daily: { date: string; count: number }[] }>('orders/sorted', query);
    const walls = await Promise.all([floor.wallId, otherWall.id].map((wallId) => get<Stats>('stats', { ...query, wallId, products: 0 })));
    // The floor is what the test made: the figures are not all zeros.
    expect(stats.confirmedUnits).toBe(4);
    expect(stats.failedScans).toBe(2);
    expect(stats.byUser).toEqual([{ userId: sorterId, scans: 3, units: 4 }]);

    // The tiles are the /insights/stats answer.
    const tile = (k: string) => page.textContent(`#tiles [data-figure="${k}"] dd`);
    expect(await tile('units')).toBe(String(stats.confirmedUnits));
    expect(await tile('unitsPerHour')).toBe(String(stats.unitsPerHour));
    expect(await tile('failedScans')).toBe(String(stats.failedScans));
    expect(await page.textContent('#zone')).toContain(`${stats.from.slice(0, 10)} ${stats.from.slice(11, 16)} UTC`);

    // Each chart draws the answers' numbers, nothing else.
    expect(await chartData(page, 'hourly')).toEqual({
      labels: hourly.hourly.map((h) => `${String(h.hour).padStart(2, '0')}:00`),
      datasets: [{ label: 'Units confirmed', data: hourly.hourly.map((h) => h.count) }],
    });
    expect(units.daily.reduce((n, d) => n + d.count, 0)).toBe(4);
    expect(hourly.hourly.some((h) => h.count > 0)).toBe(true);
    expect(await chartData(page, 'daily')).toEqual({
      labels: units.daily.map((d) => d.date),
      datasets: [
        { label: 'Units confirmed', data: units.daily.map((d) => d.count) },
        { label: 'Orders sorted', data: orders.daily.map((d) => d.count) },
      ],
    });
    expect(await chartData(page, 'sorters')).toEqual({
      labels: ['Sam Sorter'],
      datasets: [
        { label: 'Units confirmed', data: [4] },
        { label: 'Scans', data: [3] },
      ],
    });
    const wallNames = [(await request(api.app).get(`/api/v1/walls/${floor.wallId}`).set('Authorization', floor.tenant.auth)).body.name, otherWall.name];
    const wallChart = await chartData(page, 'walls');
    expect(wallChart?.labels).toEqual(expect.arrayContaining(wallNames));
    const byName = (names: unknown[], values: unknown[]) => Object.fromEntries(names.map((n, i) => [n, values[i]]));
    expect(byName(wallChart!.labels, wallChart!.datasets[0]!.data)).toEqual({ [wallNames[0]]: walls[0]!.confirmedUnits, [wallNames[1]]: walls[1]!.confirmedUnits });
    const refusals = await chartData(page, 'refusals');
    expect(byName(refusals!.labels, refusals!.datasets[0]!.data)).toEqual({ [wallNames[0]]: walls[0]!.failedScans, [wallNames[1]]: walls[1]!.failedScans });
    expect(walls[0]!.failedScans).toBe(2);
    // Refusals by reason: the answer's codes in words, the counts the answer's, most first.
    expect(stats.refusalsByReason).toEqual([
      { code: 'barcode-not-recognized', count: 2 },
      { code: 'units-exceed-remaining', count: 1 },
    ]);
    expect(await chartData(page, 'reasons')).toEqual({
      labels: ['Unknown barcode', 'More units than the order needs'],
      datasets: [{ label: 'Refusals', data: stats.refusalsByReason.map((r) => r.count) }],
    });
    await page.click('[data-chart="reasons"] button.view');
    await page.waitForSelector('[data-chart="reasons"][data-view="table"] table', { state: 'visible' });
    expect(await tableRows(page, 'reasons')).toEqual([
      ['Unknown barcode', 'barcode-not-recognized', '2'],
      ['More units than the order needs', 'units-exceed-remaining', '1'],
    ]);
    const [reasonsCsv] = await Promise.all([page.waitForEvent('download'), page.click('[data-chart="reasons"] button.csv')]);
    expect(reasonsCsv.suggestedFilename()).toBe(`insights-refusals-by-reason-company-${query.from}-${query.to}.csv`);
    expect(readFileSync((await reasonsCsv.path())!, 'utf8').replace(/^\uFEFF/, '').trimEnd().split('\r\n')).toEqual([
      'Reason,Code,Refusals',
      ...stats.refusalsByReason.map((r) => `${r.code === 'barcode-not-recognized' ? 'Unknown barcode' : 'More units than the order needs'},${r.code},${r.count}`),
    ]);
    await page.click('[data-chart="reasons"] button.view');
    const widths = await page.evaluate('[document.documentElement.scrollWidth, document.documentElement.clientWidth]') as number[];
    expect(widths[0]).toBeLessThanOrEqual(widths[1]!);
    await page.screenshot({ path: join(ARTIFACTS, 'insights-1280x800.png'), fullPage: true });

    // The table view lists the same numbers as the API.
    await page.click('[data-chart="sorters"] button.view');
    await page.waitForSelector('[data-chart="sorters"][data-view="table"] table', { state: 'visible' });
    expect(await tableRows(page, 'sorters')).toEqual([['Sam Sorter', String(sorterId), String(stats.byUser[0]!.units), String(stats.byUser[0]!.scans)]]);
    for (const id of ['hourly', 'walls']) await page.click(`[data-chart="${id}"] button.view`);
    await page.screenshot({ path: join(ARTIFACTS, 'insights-tables.png'), fullPage: true });
    const wallRows = await tableRows(page, 'walls');
    expect(wallRows.find((r) => r[0] === wallNames[0])).toEqual([wallNames[0], String(walls[0]!.confirmedUnits), String(walls[0]!.unitsPerHour), String(walls[0]!.scans), String(walls[0]!.sortedOrders)]);

    // The CSV download holds the same figures.
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-chart="walls"] button.csv')]);
    expect(download.suggestedFilename()).toBe(`insights-per-wall-company-${query.from}-${query.to}.csv`);
    const csv = readFileSync((await download.path())!, 'utf8').replace(/^\uFEFF/, '');
    const lines = csv.trimEnd().split('\r\n');
    expect(lines[0]).toBe('Wall,Units confirmed,Units per hour,Scans,Orders sorted');
    expect(lines).toContain([wallNames[0], walls[0]!.confirmedUnits, walls[0]!.unitsPerHour, walls[0]!.scans, walls[0]!.sortedOrders].join(','));
    expect(lines).toContain(`"${otherWall.name.replaceAll('"', '""')}",0,0,0,0`);
    expect(lines).toHaveLength(3);
    const [hourlyCsv] = await Promise.all([page.waitForEvent('download'), page.click('[data-chart="hourly"] button.csv')]);
    const hourLines = readFileSync((await hourlyCsv.path())!, 'utf8').replace(/^\uFEFF/, '').trimEnd().split('\r\n');
    expect(hourLines.slice(1)).toEqual(hourly.hourly.map((h) => `${String(h.hour).padStart(2, '0')}:00,${h.count}`));

    // One wall: its own figures, the choice kept in the address.
    await page.selectOption('#filters select[name=scope]', `wall:${otherWall.id}`);
    await page.click('#filters button[type=submit]');
    await page.waitForFunction((name) => document.querySelectorAll(`[data-chart="walls"] tbody tr`).length === 1 && JSON.stringify(Chart.getChart(document.querySelectorAll('[data-chart="walls"] canvas')[0])?.data.labels) === JSON.stringify([name]), otherWall.name, { timeout: STEP_MS });
    expect(await tile('units')).toBe('0');
    expect(new URL(page.url()).searchParams.get('scope')).toBe(`wall:${otherWall.id}`);

    // A range the service refuses: its reason under the form, and no figures of the earlier question.
    await page.fill('#filters input[name=from]', query.to);
    await page.fill('#filters input[name=to]', query.from);
    await page.click('#filters button[type=submit]');
    await page.waitForSelector('#filters .form-error:has-text("must not be after")', { timeout: STEP_MS });
    expect(await page.isHidden('#charts')).toBe(true);
    expect(await page.isHidden('#tiles')).toBe(true);
    expect(pageErrors).toEqual([]);
    await page.context().close();
  });

  it('an Admin reads it on a tablet: one column upright, nothing wider than the screen either way', async () => {
    const page = await openAs({ email: floor.tenant.adminEmail, password: floor.tenant.password }, { width: 800, height: 1280 }, { isMobile: true, hasTouch: true });
    await page.waitForSelector('#insights:not([hidden]) [data-chart="refusals"] canvas', { timeout: STEP_MS });
    await page.waitForFunction(() => document.querySelectorAll('body[data-loading]').length === 0, undefined, { timeout: STEP_MS });
    const widths = await page.evaluate('[document.documentElement.scrollWidth, document.documentElement.clientWidth]') as number[];
    expect(widths[0]).toBeLessThanOrEqual(widths[1]!);
    const lefts = await page.$$eval('.chart-card', (cards) => cards.map((c) => (c as unknown as { getBoundingClientRect(): { left: number } }).getBoundingClientRect().left));
    expect(new Set(lefts).size).toBe(1);
    await page.screenshot({ path: join(ARTIFACTS, 'insights-tablet.png'), fullPage: true });
    // Turned sideways: two columns, still within the screen.
    await page.setViewportSize({ width: 1180, height: 820 });
    await page.waitForFunction(() => new Set(Array.from(document.querySelectorAll('.chart-card'), (c) => (c as unknown as { getBoundingClientRect(): { left: number } }).getBoundingClientRect().left)).size === 2, undefined, { timeout: STEP_MS });
    // The charts follow the new width (Chart.js watches its box): then nothing sticks out.
    const sideways: number[][] = [];
    await page.waitForFunction(() => {
      const e = (document as unknown as { documentElement: { scrollWidth: number; clientWidth: number } }).documentElement;
      return e.scrollWidth <= e.clientWidth;
    }, undefined, { timeout: 5_000 }).catch(async () => sideways.push(await page.evaluate('[document.documentElement.scrollWidth, document.documentElement.clientWidth, innerWidth, Array.from(document.querySelectorAll("canvas"), (c) => c.width + ":" + c.style.width)]') as number[]));
    expect(sideways).toEqual([]);
    await page.screenshot({ path: join(ARTIFACTS, 'insights-tablet-landscape.png'), fullPage: true });
    expect(pageErrors).toEqual([]);
    await page.context().close();
  });

  it('a Sorter is refused, in words, and no figure is drawn', async () => {
    const page = await openAs(sorter, { width: 1280, height: 800 });
    await page.waitForSelector('#refused:not([hidden])', { timeout: STEP_MS });
    expect(await page.textContent('#refused h2')).toBe('Insights are for Managers and Admins');
    expect(await page.textContent('#refused-detail')).toMatch(/^You are signed in as Sorter\. .*Managers and Admins/);
    expect(await page.isHidden('#insights')).toBe(true);
    expect(await page.$$eval('canvas', (cs) => cs.filter((c) => Chart.getChart(c)).length)).toBe(0);
    await page.screenshot({ path: join(ARTIFACTS, 'insights-sorter-refused.png') });
    // "Sign in as a Manager" signs the Sorter out.
    await page.click('#refused-sign-out');
    await page.waitForSelector('#sign-in:not([hidden])', { timeout: STEP_MS });
    expect(pageErrors).toEqual([]);
    await page.context().close();
  });
});
