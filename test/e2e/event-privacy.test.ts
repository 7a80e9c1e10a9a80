import { createServer, get, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import WebSocket from 'ws';
import { attachWebSocketEvents } from '../../services/api/events/websocket-events';
import { startTestApi, waitFor, type TestApi } from '../support/test-api';
import { buildFloor, connect, scan, type Floor } from '../support/sorting-floor';

/*
 * A session token is a credential (it scans as that sorter), and anyone following a
 * wall reads its events. Events name a session by its id: no event payload carries a token, over
 * WebSocket, SSE or webhooks, nor in the outbox they all come from.
 */

jest.setTimeout(60_000);

describe('events never carry a session token', () => {
  let api: TestApi;
  let server: Server;
  let base: string;
  let closeWs: () => Promise<void>;
  let hook: Server;
  let hookUrl: string;
  const hookBodies: string[] = [];
  beforeAll(async () => {
    api = await startTestApi({ workers: ['sorting', 'outbox', 'webhooks'], env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
    server = createServer(api.app);
    closeWs = attachWebSocketEvents(server, api.deps);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    base = `127.0.0.1:${(server.address() as AddressInfo).port}`;
    hook = createServer((req, res) => {
      let raw = '';
      req.on('data', (c: Buffer) => (raw += c.toString()));
      req.on('end', () => {
        hookBodies.push(raw);
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', () => r()));
    hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;
  });
  afterAll(async () => {
    await closeWs();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    await new Promise((r) => hook.close(r));
    await api.close();
  });

  /** A Sorter of the floor follows its wall over SSE and WebSocket at once; what each received, raw. */
  async function follow(floor: Floor): Promise<{ sse: () => string; ws: string[]; close(): void }> {
    const watcher = await floor.sorter(9);
    let sseRaw = '';
    const sseReq = get(`http://${base}/api/v1/events?wallId=${floor.wallId}&access_token=${watcher.auth.slice('Bearer '.length)}`, (res) => {
      res.setEncoding('utf8');
      res.on('data', (c: string) => (sseRaw += c));
    });
    sseReq.on('error', () => undefined);
    const wsRaw: string[] = [];
    const ws = new WebSocket(`ws://${base}/api/v1/events/ws?wallId=${floor.wallId}`, { headers: { Authorization: watcher.auth } });
    ws.on('message', (m) => wsRaw.push(String(m)));
    await new Promise((r, j) => (ws.once('open', r), ws.once('error', j)));
    await waitFor(() => sseRaw.includes('retry:'), { what: 'the SSE stream to open' });
    return {
      sse: () => sseRaw,
      ws: wsRaw,
      close: () => {
        sseReq.destroy();
        ws.close();
      },
    };
  }

  it('session.started, session.ended and item events name the session by id, over WebSocket, SSE, webhooks and in the outbox', async () => {
    const floor = await buildFloor(api, { orders: [{ id: 1, items: [{ sku: 'SKU-A', qty: 1 }] }] });
    const sub = await request(api.app).post('/api/v1/admin/webhooks').set('Authorization', floor.tenant.auth).send({ url: hookUrl, events: ['*'] });
    expect(sub.status).toBe(200);

    // A Sorter follows the wall, as any sorter may.
    const watch = await follow(floor);
    const wsRaw = watch.ws;

    const a = await floor.sorter(1);
    const first = await connect(api, floor, a.auth);
    expect(first.status).toBe(200);
    const item = await scan(api, a.auth, first.body.token, 'SKU-A');
    expect(item.status).toBe(200);
    // Connecting again replaces the first session (session.ended, Replaced; the pending scan passes to the
    // second), then the second is stopped, which cancels the scan (docs/api.md §6).
    const second = await connect(api, floor, a.auth);
    expect(second.status).toBe(200);
    const stopped = await request(api.app).delete(`/api/v1/walls/${floor.wallId}/sessions/${second.body.token}`).set('Authorization', a.auth);
    expect(stopped.status).toBe(200);
    const tokens = [first.body.token as string, second.body.token as string];

    const types = ['session.started', 'sort-box-item.created', 'session.ended', 'session.started', 'session.ended', 'sort-box-item.cancelled'];
    await waitFor(() => wsRaw.length >= types.length && watch.sse().split('\ndata: ').length - 1 >= types.length && hookBodies.length >= types.length, {
      timeoutMs: 20_000,
      what: 'every event on the three channels',
    });
    const outbox = await api.runtime.orm.em
      .fork()
      .execute<{ type: string; data: unknown }[]>('select type, data from outbox_event where client_id = ? order by id', [floor.tenant.clientId]);
    expect(outbox.map((e) => e.type)).toEqual(types);

    for (const [channel, payloads] of [
      ['WebSocket', wsRaw],
      ['SSE', [watch.sse()]],
      ['webhooks', hookBodies],
      ['outbox', outbox.map((e) => JSON.stringify(e.data))],
    ] as const) {
      for (const raw of payloads) {
        for (const token of tokens) expect({ channel, leaks: raw.includes(token) }).toEqual({ channel, leaks: false });
        expect({ channel, token: /"token"\s*:/.test(raw) }).toEqual({ channel, token: false });
      }
    }
    const sessions = wsRaw.map((m) => JSON.parse(m) as { type: string; data: { session?: { id: number; userId: number } } }).filter((e) => e.type.startsWith('session.'));
    expect(sessions.map((e) => e.data.session!.id)).toEqual([first.body.id, first.body.id, second.body.id, second.body.id]);
    expect(sessions.every((e) => e.data.session!.userId === a.userId)).toBe(true);
    watch.close();
  });

  it('refusals reach the hub streams with the refusal and its facts only (never a token), and never webhooks', async () => {
    const floor = await buildFloor(api, { orders: [{ id: 1, items: [{ sku: 'SKU-A', qty: 1 }] }] });
    await request(api.app).post('/api/v1/admin/webhooks').set('Authorization', floor.tenant.auth).send({ url: hookUrl, events: ['*'] }).expect(200);
    const watch = await follow(floor);
    const wsRaw = watch.ws;

    const a = await floor.sorter(1);
    const first = (await connect(api, floor, a.auth)).body;
    expect((await scan(api, a.auth, first.token, 'NO-SUCH-PRODUCT')).body.code).toBe('barcode-not-recognized');
    const item = (await scan(api, a.auth, first.token, 'SKU-A')).body;
    const wrong = floor.slots.find((s) => s.crc !== item.crc)!;
    const refusedConfirm = await request(api.app).patch(`/api/v1/sort-box-items/${item.id}/confirm`).set('Authorization', a.auth).send({ barcode: `A-${wrong.crc}` });
    expect(refusedConfirm.body.code).toBe('wrong-slot');
    const second = (await connect(api, floor, a.auth)).body;
    const renewEnded = await request(api.app).put(`/api/v1/walls/${floor.wallId}/sessions/${first.token}`).set('Authorization', a.auth);
    expect(renewEnded.body.code).toBe('session-ended');
    // The last event: a public one, so the webhook has had its chance at everything before it.
    await request(api.app).delete(`/api/v1/walls/${floor.wallId}/sessions/${second.token}`).set('Authorization', a.auth).expect(200);

    const parsed = () => wsRaw.map((m) => JSON.parse(m) as { id: string; type: string; data: Record<string, unknown> });
    await waitFor(() => parsed().filter((e) => e.type === 'session.ended').length >= 2 && watch.sse().split('event: session.ended').length - 1 >= 2, {
      timeoutMs: 20_000,
      what: 'the refusals and the last session end on both streams',
    });
    const refused = parsed().filter((e) => e.type === 'command.refused');
    expect(refused.map((e) => [e.data.command, e.data.code])).toEqual([
      ['item.scan', 'barcode-not-recognized'],
      ['item.confirm', 'wrong-slot'],
      ['session.renew', 'session-ended'],
    ]);
    const FIELDS = ['barcode', 'barcodeInputMethod', 'code', 'command', 'crc', 'detail', 'orderId', 'picklistId', 'sessionId', 'sortBoxItemId', 'userId'];
    for (const e of refused) expect(Object.keys(e.data).sort()).toEqual(FIELDS);
    // A wrong slot names the item's own slot and what was scanned: what a hub flashes.
    expect(refused[1].data).toMatchObject({ sortBoxItemId: item.id, crc: item.crc, barcode: `A-${wrong.crc}`, userId: a.userId });
    expect(refused[2].data).toMatchObject({ userId: a.userId, barcode: null });
    // SSE carries the same events.
    for (const e of refused) expect(watch.sse()).toContain(`id: ${e.id}\nevent: command.refused\ndata: ${JSON.stringify(e)}`);
    for (const raw of [...wsRaw, watch.sse()]) {
      for (const token of [first.token, second.token]) expect(raw.includes(token)).toBe(false);
    }
    const lastId = parsed().filter((e) => e.type === 'session.ended').at(-1)!.id;
    await waitFor(() => hookBodies.some((b) => b.includes(lastId)), { timeoutMs: 20_000, what: 'the last public event at the webhook' });
    expect(hookBodies.filter((b) => b.includes('command.refused'))).toEqual([]);
    watch.close();
  });
});
