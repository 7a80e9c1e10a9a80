import { createServer, get, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import WebSocket from 'ws';
import { createApp } from '../../services/api/app';
import { WallEventsHub } from '../../services/api/events/wall-events.hub';
import { attachWebSocketEvents } from '../../services/api/events/websocket-events';
import { HEARTBEAT_MS } from '../../services/api/events/sse-events';
import { createRedis } from '../../shared/redis/redis';
import { startTestApi, waitFor, type TestApi } from '../support/test-api';
import { buildFloor, type Floor } from '../support/sorting-floor';
import { closedPort } from '../support/api-process';

/*
 * No request to the event streams can crash the API or leave a wall
 * listener behind. 36 dashes once passed the event id check and failed inside PostgreSQL: over
 * WebSocket an unhandled rejection stopped the process, over SSE the stream ended with a 500 and
 * its listener stayed for good.
 */

jest.setTimeout(120_000);

const DASHES = '-'.repeat(36);

async function serve(app: Parameters<typeof createServer>[1], deps: TestApi['deps']): Promise<{ server: Server; base: string; close: () => Promise<void> }> {
  const server = createServer(app);
  const closeWs = attachWebSocketEvents(server, deps);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const base = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    server,
    base,
    close: async () => {
      await closeWs();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

/** Opens a WebSocket; resolves with 'open' (and the socket) or the HTTP status of the refusal. */
function openWs(url: string, token: string): Promise<{ ws: WebSocket; status: number | 'open'; body: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers: { Authorization: `Bearer ${token}` } });
    ws.once('open', () => resolve({ ws, status: 'open', body: '' }));
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ ws, status: res.statusCode ?? 0, body }));
    });
    ws.once('error', reject);
  });
}

/** Opens an SSE stream; resolves once the server answered (the status) with a way to abort it. */
function openSse(base: string, path: string, headers: Record<string, string>): Promise<{ status: number; abort: () => void; retryAfter?: string }> {
  return new Promise((resolve, reject) => {
    const req = get(`http://${base}${path}`, { headers, agent: false }, (res) => {
      res.setEncoding('utf8');
      let seen = '';
      const done = () => resolve({ status: res.statusCode ?? 0, abort: () => req.destroy(), retryAfter: res.headers['retry-after'] as string | undefined });
      if (res.statusCode !== 200) {
        res.resume();
        res.on('end', done);
        return;
      }
      res.on('data', (c: string) => {
        seen += c;
        if (seen.includes('retry:')) done();
      });
    });
    req.on('error', (err) => reject(err));
  });
}

describe('event streams under bad input, broken clients and a Redis outage', () => {
  let api: TestApi;
  let srv: Awaited<ReturnType<typeof serve>>;
  let floor: Floor;
  let token: string;
  beforeAll(async () => {
    api = await startTestApi();
    srv = await serve(api.app, api.deps);
    floor = await buildFloor(api);
    token = floor.tenant.adminToken;
  });
  afterAll(async () => {
    await srv?.close();
    await api?.close();
  });

  it('answers a malformed Last-Event-ID (36 dashes) with 400 over SSE and WebSocket, and keeps serving', async () => {
    const sse = await request(api.app).get(`/api/v1/events?wallId=${floor.wallId}`).set('Authorization', `Bearer ${token}`).set('Last-Event-ID', DASHES);
    expect(sse.status).toBe(400);
    expect(sse.body).toMatchObject({ code: 'validation-failed', errors: [{ path: 'Last-Event-ID', in: 'header' }] });

    const ws = await openWs(`ws://${srv.base}/api/v1/events/ws?wallId=${floor.wallId}&lastEventId=${DASHES}`, token);
    expect(ws.status).toBe(400);
    expect(JSON.parse(ws.body)).toMatchObject({ code: 'validation-failed', errors: [{ path: 'lastEventId' }] });

    for (const wallId of ['0x1', '1e3', '-1', '99999999999', '']) {
      const bad = await openWs(`ws://${srv.base}/api/v1/events/ws?wallId=${wallId}`, token);
      expect({ wallId, status: bad.status }).toEqual({ wallId, status: 400 });
    }

    // A well-formed id that names no event replays nothing and streams on.
    const ok = await openWs(`ws://${srv.base}/api/v1/events/ws?wallId=${floor.wallId}&lastEventId=0b7e4a5c-9c1d-4e55-8f3a-2d6b1c0e9f17`, token);
    expect(ok.status).toBe('open');
    ok.ws.close();
    await waitFor(() => api.deps.events.listenerCount() === 0, { what: 'the listener to go' });
    expect((await request(api.app).get('/healthz')).status).toBe(200);
  });

  it('releases every wall listener: 1,000 streams opened and broken in mixed ways leave the count at zero', async () => {
    const kinds = ['sse-abort', 'sse-abort-early', 'ws-close', 'ws-terminate', 'sse-bad-id', 'ws-bad-id'] as const;
    const counts: Record<string, number> = {};
    let peak = 0;
    const one = async (i: number) => {
      const kind = kinds[i % kinds.length];
      counts[kind] = (counts[kind] ?? 0) + 1;
      const path = `/api/v1/events?wallId=${floor.wallId}`;
      const wsUrl = `ws://${srv.base}/api/v1/events/ws?wallId=${floor.wallId}`;
      switch (kind) {
        case 'sse-abort': {
          const s = await openSse(srv.base, path, { Authorization: `Bearer ${token}` });
          expect(s.status).toBe(200);
          peak = Math.max(peak, api.deps.events.listenerCount());
          s.abort();
          return;
        }
        case 'sse-abort-early': {
          // Gone before the server answered: it may be subscribing at that moment.
          const req = get(`http://${srv.base}${path}`, { headers: { Authorization: `Bearer ${token}` }, agent: false });
          req.on('error', () => undefined);
          await new Promise<void>((r) => req.once('socket', (sock) => (sock.connecting ? sock.once('connect', () => r()) : r())));
          req.destroy();
          return;
        }
        case 'ws-close':
        case 'ws-terminate': {
          const w = await openWs(wsUrl, token);
          expect(w.status).toBe('open');
          peak = Math.max(peak, api.deps.events.listenerCount());
          const closed = new Promise((r) => w.ws.once('close', r));
          if (kind === 'ws-close') w.ws.close();
          else w.ws.terminate();
          await closed;
          return;
        }
        case 'sse-bad-id': {
          const s = await openSse(srv.base, path, { Authorization: `Bearer ${token}`, 'Last-Event-ID': DASHES });
          expect(s.status).toBe(400);
          return;
        }
        case 'ws-bad-id': {
          const w = await openWs(`${wsUrl}&lastEventId=${DASHES}`, token);
          expect(w.status).toBe(400);
          return;
        }
      }
    };
    const TOTAL = 1000;
    const PARALLEL = 25;
    // Each stream is bounded in time, so a hang names its kind instead of timing out the test.
    const bounded = (i: number) =>
      Promise.race([
        one(i),
        new Promise((_, reject) => setTimeout(() => reject(new Error(`stream ${i} (${kinds[i % kinds.length]}) did not finish in 10 s`)), 10_000).unref()),
      ]);
    for (let i = 0; i < TOTAL; i += PARALLEL) {
      await Promise.all(Array.from({ length: Math.min(PARALLEL, TOTAL - i) }, (_, k) => bounded(i + k)));
    }
    expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(TOTAL);
    expect(peak).toBeGreaterThan(0);
    await waitFor(() => api.deps.events.listenerCount() === 0, { timeoutMs: 10_000, what: 'every wall listener to be released' }).catch((err: Error) => {
      throw new Error(`${err.message}; still ${api.deps.events.listenerCount()} listener(s)`);
    });
    const metrics = await request(api.app).get('/metrics');
    expect(metrics.text).toMatch(/^wall_event_listeners 0$/m);
  });

  it("closes a deactivated employee's open SSE and WebSocket streams at the next heartbeat", async () => {
    const sorter = await floor.sorter(7);
    const bearer = sorter.auth.slice('Bearer '.length);
    let sseEnded = false;
    const sseReq = get(`http://${srv.base}/api/v1/events?wallId=${floor.wallId}`, { headers: { Authorization: sorter.auth }, agent: false }, (res) => {
      expect(res.statusCode).toBe(200);
      res.resume();
      res.on('end', () => (sseEnded = true));
      res.on('close', () => (sseEnded = true));
    });
    sseReq.on('error', () => (sseEnded = true));
    const w = await openWs(`ws://${srv.base}/api/v1/events/ws?wallId=${floor.wallId}`, bearer);
    expect(w.status).toBe('open');
    let wsClose: number | undefined;
    w.ws.on('close', (code) => (wsClose = code));
    await waitFor(() => api.deps.events.listenerCount() === 2, { what: 'both streams to follow the wall' });

    const res = await request(api.app).patch(`/api/v1/admin/employees/${sorter.userId}`).set('Authorization', `Bearer ${token}`).send({ isActive: false });
    expect(res.status).toBe(200);
    await waitFor(() => sseEnded && wsClose !== undefined, { timeoutMs: HEARTBEAT_MS + 10_000, intervalMs: 100, what: 'both streams to close' });
    expect(wsClose).toBe(1008);
    await waitFor(() => api.deps.events.listenerCount() === 0, { what: 'the listeners to go' });
  });

  it('answers 503 with Retry-After over SSE and WebSocket while Redis is unreachable, and leaves nothing behind', async () => {
    const deadRedis = createRedis(`redis://127.0.0.1:${await closedPort()}`, { maxRetriesPerRequest: 1 });
    const hub = new WallEventsHub(deadRedis, api.runtime.config.QUEUE_PREFIX);
    const deps = { ...api.deps, events: hub };
    const down = await serve(createApp(deps), deps);
    try {
      const sse = await openSse(down.base, `/api/v1/events?wallId=${floor.wallId}`, { Authorization: `Bearer ${token}` });
      expect(sse.status).toBe(503);
      expect(sse.retryAfter).toMatch(/^\d+$/);
      const ws = await openWs(`ws://${down.base}/api/v1/events/ws?wallId=${floor.wallId}`, token);
      expect(ws.status).toBe(503);
      expect(JSON.parse(ws.body)).toMatchObject({ code: 'service-unavailable' });
      expect(hub.listenerCount()).toBe(0);
    } finally {
      await down.close();
      hub.close();
    }
  });
});
