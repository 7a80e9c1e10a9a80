import { createServer, get, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import WebSocket from 'ws';
import { attachWebSocketEvents } from '../../services/api/events/websocket-events';
import { startTestApi, waitFor, type TestApi } from '../support/test-api';
import { buildFloor, connect, scan } from '../support/sorting-floor';

describe('hub events over SSE and WebSocket (docs/api.md §8)', () => {
  let api: TestApi;
  let server: Server;
  let base: string;
  let closeWs: () => Promise<void>;
  beforeAll(async () => {
    api = await startTestApi({ workers: ['sorting', 'outbox'] });
    server = createServer(api.app);
    closeWs = attachWebSocketEvents(server, api.deps);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    base = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await closeWs();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    await api.close();
  });

  function openSse(path: string, headers: Record<string, string> = {}) {
    const chunks: string[] = [];
    const state: { status?: number; type?: string; close: () => void } = { close: () => undefined };
    const req = get(`http://${base}${path}`, { headers }, (res) => {
      state.status = res.statusCode;
      state.type = res.headers['content-type'];
      res.setEncoding('utf8');
      res.on('data', (c: string) => chunks.push(c));
    });
    req.on('error', () => undefined);
    state.close = () => req.destroy();
    const events = () =>
      chunks
        .join('')
        .split('\n\n')
        .filter((b) => b.includes('data: '))
        .map((b) => JSON.parse(b.split('\n').find((l) => l.startsWith('data: '))!.slice(6)) as { id: string; type: string; data: any });
    return { state, events, raw: () => chunks.join('') };
  }

  it('streams the scan that lights a slot, with crc, position and color, to SSE and WebSocket hubs', async () => {
    const floor = await buildFloor(api, { orders: [{ id: 1, items: [{ sku: 'SKU-A', qty: 1 }] }] });
    const token = floor.tenant.adminToken;
    const sse = openSse(`/api/v1/events?wallId=${floor.wallId}&access_token=${token}`);
    const wsMessages: { type: string; data: any }[] = [];
    const ws = new WebSocket(`ws://${base}/api/v1/events/ws?wallId=${floor.wallId}`, { headers: { Authorization: `Bearer ${token}` } });
    ws.on('message', (m) => wsMessages.push(JSON.parse(String(m))));
    await new Promise((r, j) => (ws.once('open', r), ws.once('error', j)));
    await waitFor(() => sse.state.status === 200 && sse.raw().includes('retry:'), { what: 'the SSE stream to open' });
    expect(sse.state.type).toMatch(/text\/event-stream/);

    const a = await floor.sorter(1);
    const { body: s } = await connect(api, floor, a.auth);
    const item = await scan(api, a.auth, s.token, 'SKU-A');
    await waitFor(() => sse.events().length >= 2 && wsMessages.length >= 2, { what: 'events on both channels' });
    for (const events of [sse.events(), wsMessages]) {
      expect(events.map((e) => e.type)).toEqual(['session.started', 'sort-box-item.created']);
      expect(events[1].data).toMatchObject({ color: 'Red', colorHex: '#E53935', sortBox: { crc: item.body.crc, position: 1 } });
    }
    expect(sse.raw()).toContain(`event: sort-box-item.created`);

    // Reconnecting with Last-Event-ID replays what came after it.
    const firstId = sse.events()[0].id;
    sse.state.close();
    const again = openSse(`/api/v1/events?wallId=${floor.wallId}`, { Authorization: `Bearer ${token}`, 'Last-Event-ID': firstId });
    await waitFor(() => again.events().length >= 1, { what: 'the replayed event' });
    expect(again.events().map((e) => e.type)).toEqual(['sort-box-item.created']);
    again.state.close();
    ws.close();
  });

  it("refuses another client's wall and a missing token", async () => {
    const floor = await buildFloor(api);
    const other = await buildFloor(api);
    const foreign = openSse(`/api/v1/events?wallId=${floor.wallId}&access_token=${other.tenant.adminToken}`);
    await waitFor(() => foreign.state.status !== undefined, { what: 'an answer' });
    expect(foreign.state.status).toBe(404);
    const ws = new WebSocket(`ws://${base}/api/v1/events/ws?wallId=${floor.wallId}`);
    const status = await new Promise<number>((r) => ws.on('unexpected-response', (_req, res) => r(res.statusCode ?? 0)));
    expect(status).toBe(401);
  });
});
