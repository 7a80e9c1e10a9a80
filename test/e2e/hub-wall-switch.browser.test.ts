import request from 'supertest';
import type { Browser, Page, Route } from 'playwright-core';
import { addSlots, addWall } from '../support/fixtures';
import { launchChromium, servePages, type PagesServer } from '../support/pages-server';
import { startTestApi, waitFor, type TestApi } from '../support/test-api';
import { buildFloor, type Floor } from '../support/sorting-floor';

/*
 * The hub and the shipper's page switching walls (README "The hub, sorter, shipper and insights
 * pages"): the wall chosen last is the one shown, however the reads of the wall chosen before are
 * slowed, and the page keeps exactly one event stream open, the shown wall's. The reads of wall A are
 * held in the browser (page.route) until the switch to B is done, then let through: the page must
 * stay on B.
 */

const STEP_MS = 15_000;
jest.setTimeout(120_000);

/** The page's fetches not yet answered and read (hub.js reads every answer with text()). */
const READS = '__hubReads';

describe('the hub switching walls', () => {
  let api: TestApi;
  let pages: PagesServer;
  let browser: Browser;
  let floor: Floor;
  let wallA: number;
  let wallB: number;
  const SLOTS_A = 6;
  const SLOTS_B = 9;

  beforeAll(async () => {
    api = await startTestApi({ workers: ['sorting', 'outbox'] });
    pages = await servePages(api);
    floor = await buildFloor(api, { slots: SLOTS_A });
    wallA = floor.wallId;
    const em = api.runtime.orm.em.fork();
    const b = await addWall(em, floor.tenant.clientId, { name: `Wall B ${wallA}`, warehouseId: floor.warehouseId });
    await addSlots(em, floor.tenant.clientId, b.id, SLOTS_B);
    wallB = b.id;
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await pages?.close();
    await api?.close();
  });

  /** A page (hub or shipper) whose reads of wall A can be held, and whose event streams are counted. */
  async function watchedPage() {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('dialog', (d) => {
      problems.push(`alert: ${d.message()}`);
      void d.dismiss();
    });
    // Every fetch counts until its answer is read, so "no read left" means every run of openWall is over.
    await page.addInitScript((name) => {
      const g = globalThis as unknown as Record<string, unknown> & { fetch: (...a: unknown[]) => Promise<{ text(): Promise<string> }> };
      const fetch = g.fetch.bind(g);
      g[name] = 0;
      const done = () => ((g[name] as number) -= 1);
      g.fetch = (...args: unknown[]) => {
        g[name] = (g[name] as number) + 1;
        return fetch(...args).then(
          (res) => {
            const text = res.text.bind(res);
            res.text = () => text().finally(done);
            return res;
          },
          (err) => {
            done();
            throw err;
          },
        );
      };
    }, READS);
    const held: Route[] = [];
    const hold = { on: false };
    const ofWallA = (u: URL) =>
      u.pathname === `/api/v1/walls/${wallA}` || u.pathname.startsWith(`/api/v1/walls/${wallA}/`) || (u.pathname === '/api/v1/events/recent' && u.searchParams.get('wallId') === String(wallA));
    await page.route(
      (u) => u.pathname.startsWith('/api/v1/'),
      (route) => {
        if (hold.on && ofWallA(new URL(route.request().url()))) held.push(route);
        else void route.continue();
      },
    );
    const sockets: { wallId: string | null; open: boolean }[] = [];
    page.on('websocket', (ws) => {
      const s = { wallId: new URL(ws.url()).searchParams.get('wallId'), open: true };
      sockets.push(s);
      ws.on('close', () => (s.open = false));
    });
    return {
      page,
      problems,
      sockets,
      held,
      holdWallA: () => (hold.on = true),
      /** Lets the held reads of wall A through, and any that follow. */
      async release() {
        hold.on = false;
        for (const r of held.splice(0)) await r.continue();
      },
      openStreams: () => sockets.filter((s) => s.open).map((s) => Number(s.wallId)),
    };
  }

  async function signIn(page: Page, wallId: number, path = '/hub'): Promise<void> {
    await page.goto(`${pages.base}${path}?wall=${wallId}`);
    await page.fill('#sign-in input[name=username]', floor.tenant.adminEmail);
    await page.fill('#sign-in input[name=password]', floor.tenant.password);
    await page.click('#sign-in button[type=submit]');
  }

  const slotCount = (page: Page) => page.locator('#grid .slot').count();

  /** The page shows `wallId` (its slots, its address, the selector) and its one stream is live. */
  async function showing(h: Awaited<ReturnType<typeof watchedPage>>, wallId: number, slots: number): Promise<void> {
    await waitFor(async () => (await slotCount(h.page)) === slots, { timeoutMs: STEP_MS, what: `the grid of wall ${wallId}` });
    await waitFor(() => h.openStreams().length === 1 && h.openStreams()[0] === wallId, { timeoutMs: STEP_MS, what: `one stream, wall ${wallId}'s` });
    await h.page.waitForSelector('#live[data-state=on]', { timeout: STEP_MS });
    expect(await h.page.inputValue('#wall-select')).toBe(String(wallId));
    expect(new URL(h.page.url()).searchParams.get('wall')).toBe(String(wallId));
  }

  /** Every run of openWall is over: no read is left unanswered or unread in the page. */
  const settled = (page: Page) => page.waitForFunction((name) => (globalThis as unknown as Record<string, number>)[name] === 0, READS, { timeout: STEP_MS, polling: 50 });

  it('ends on the wall chosen last when the reads of the wall chosen before are slower, with one stream open', async () => {
    const h = await watchedPage();
    await signIn(h.page, wallA);
    await showing(h, wallA, SLOTS_A);
    await h.page.selectOption('#wall-select', String(wallB));
    await showing(h, wallB, SLOTS_B);

    // A, then B at once: A's reads wait in the browser until B is shown.
    h.holdWallA();
    await h.page.selectOption('#wall-select', String(wallA));
    await waitFor(() => h.held.length > 0, { timeoutMs: STEP_MS, what: "wall A's first read to be held" });
    const before = h.sockets.length;
    await h.page.selectOption('#wall-select', String(wallB));
    await waitFor(() => h.sockets.length === before + 1 && h.openStreams().join() === String(wallB), { timeoutMs: STEP_MS, what: "wall B's new stream" });
    await showing(h, wallB, SLOTS_B);

    // A's reads come back last: the page stays on B, with B's stream only.
    await h.release();
    await settled(h.page);
    await showing(h, wallB, SLOTS_B);
    expect(h.sockets.filter((s) => Number(s.wallId) === wallA)).toHaveLength(1); // the first one, closed
    expect(h.openStreams()).toEqual([wallB]);

    // The one stream open is live: a change of wall B shows in its feed.
    await request(api.app).patch(`/api/v1/walls/${wallB}`).set('Authorization', floor.tenant.auth).send({ name: `Wall B2 ${wallA}` }).expect(200);
    await h.page.waitForSelector('#feed li[data-type="wall.updated"]', { timeout: STEP_MS });
    await settled(h.page);
    await showing(h, wallB, SLOTS_B);
    expect(h.problems).toEqual([]);
    await h.page.close();
  });

  it('a wall.updated re-read of wall A finishing last does not bring A back after B was chosen', async () => {
    const h = await watchedPage();
    await signIn(h.page, wallA);
    await showing(h, wallA, SLOTS_A);

    // Wall A changes: the page reads it again, and those reads are held; meanwhile B is chosen.
    h.holdWallA();
    await request(api.app).patch(`/api/v1/walls/${wallA}`).set('Authorization', floor.tenant.auth).send({ name: `Wall A2 ${wallA}` }).expect(200);
    await waitFor(() => h.held.length > 0, { timeoutMs: STEP_MS, what: "the re-read of wall A to be held" });
    await waitFor(() => h.openStreams().length === 0, { timeoutMs: STEP_MS, what: "the re-read to close A's stream first" });
    await h.page.selectOption('#wall-select', String(wallB));
    await showing(h, wallB, SLOTS_B);

    await h.release();
    await settled(h.page);
    await showing(h, wallB, SLOTS_B);
    expect(h.sockets.map((s) => Number(s.wallId))).toEqual([wallA, wallB]);
    expect(h.problems).toEqual([]);
    await h.page.close();
  });

  it("the shipper's page, switched back and forth while A's reads are slow, ends on B with one stream", async () => {
    const nameB = (await request(api.app).get(`/api/v1/walls/${wallB}`).set('Authorization', floor.tenant.auth).expect(200)).body.name as string;
    const h = await watchedPage();
    const on = async (wallId: number) => {
      await waitFor(() => h.openStreams().length === 1 && h.openStreams()[0] === wallId, { timeoutMs: STEP_MS, what: `one stream, wall ${wallId}'s` });
      await h.page.waitForSelector('#live[data-state=on]', { timeout: STEP_MS });
      expect(await h.page.inputValue('#wall-select')).toBe(String(wallId));
      expect(new URL(h.page.url()).searchParams.get('wall')).toBe(String(wallId));
    };
    await signIn(h.page, wallA, '/shipper');
    await on(wallA);
    await h.page.selectOption('#wall-select', String(wallB));
    await on(wallB);

    h.holdWallA();
    await h.page.selectOption('#wall-select', String(wallA));
    await waitFor(() => h.held.length > 0, { timeoutMs: STEP_MS, what: "wall A's read to be held" });
    const before = h.sockets.length;
    await h.page.selectOption('#wall-select', String(wallB));
    await waitFor(() => h.sockets.length === before + 1, { timeoutMs: STEP_MS, what: "wall B's new stream" });
    await on(wallB);

    await h.release();
    await settled(h.page);
    await on(wallB);
    expect(await h.page.textContent('.bar h1')).toBe(`Shipper · ${nameB}`);
    expect(h.sockets.map((s) => Number(s.wallId))).toEqual([wallA, wallB, wallB]);
    expect(h.problems).toEqual([]);
    await h.page.close();
  });
});
