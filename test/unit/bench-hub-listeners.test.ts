import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { HubListeners } from '../../bench/lib/hub-listeners';

/** The hubs' WebSockets of the bench (bench/lib/hub-listeners.ts), held by a child process. */
describe("the bench's hub listeners", () => {
  let server: http.Server;
  let wss: WebSocketServer;
  let port: number;
  const opened: { url: string; auth: string | undefined; ws: WebSocket }[] = [];

  beforeAll(async () => {
    server = http.createServer((_req, res) => res.writeHead(404).end());
    wss = new WebSocketServer({ noServer: true });
    server.on('upgrade', (req, socket, head) => {
      // Wall 13 does not exist: refused before the handshake, as the API refuses an unknown wall.
      if (req.url?.endsWith('wallId=13')) return void socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n');
      wss.handleUpgrade(req, socket, head, (ws) => opened.push({ url: req.url!, auth: req.headers.authorization, ws }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    for (const c of wss.clients) c.terminate();
    await new Promise<void>((r) => wss.close(() => r()));
    await new Promise<void>((r) => server.close(() => r()));
  });

  /** Polls `probe` until it returns true, at most `ms`. */
  const until = async (probe: () => boolean | Promise<boolean>, ms = 10_000) => {
    const end = Date.now() + ms;
    while (!(await probe())) {
      if (Date.now() > end) throw new Error('condition not met in time');
      await new Promise((r) => setImmediate(r));
    }
  };

  it("opens one socket a wall with the hub's token and counts every message they receive", async () => {
    const hubs = new HubListeners();
    try {
      await hubs.open(port, 'Bearer hub-token', [{ id: 11 }, { id: 12 }]);
      expect(opened.map((o) => o.url).sort()).toEqual(['/api/v1/events/ws?wallId=11', '/api/v1/events/ws?wallId=12']);
      expect(opened.every((o) => o.auth === 'Bearer hub-token')).toBe(true);
      expect(await hubs.events()).toBe(0);
      for (let i = 0; i < 5; i++) for (const o of opened) o.ws.send(JSON.stringify({ type: 'slot.lit', i }));
      await until(async () => (await hubs.events()) === 10);
    } finally {
      hubs.close();
    }
    // Closing ends the child, and with it its sockets.
    await until(() => opened.every((o) => o.ws.readyState === o.ws.CLOSED));
    expect(await hubs.events()).toBe(10);
  });

  it('rejects when a wall’s socket cannot open', async () => {
    const hubs = new HubListeners();
    await expect(hubs.open(port, 'Bearer hub-token', [{ id: 13 }])).rejects.toThrow(/Unexpected server response: 404/);
    expect(await hubs.events()).toBe(0);
  });
});
