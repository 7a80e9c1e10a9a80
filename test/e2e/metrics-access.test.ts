import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { startTestApi, type TestApi } from '../support/test-api';

/*
 * /metrics behind credentials (docs/operations.md "Metrics and alerts"): this machine's loopback, or
 * Prometheus with METRICS_TOKEN; never someone on the floor network, nor through a proxy.
 */

/** An address of this machine that is not loopback, when it has one. */
const outsideAddress = Object.values(networkInterfaces())
  .flat()
  .find((i) => i && i.family === 'IPv4' && !i.internal)?.address;

async function listen(api: TestApi): Promise<{ server: Server; port: number }> {
  const server = createServer(api.app);
  await new Promise<void>((r) => server.listen(0, '0.0.0.0', () => r()));
  return { server, port: (server.address() as AddressInfo).port };
}

async function metrics(host: string, port: number, headers: Record<string, string> = {}): Promise<{ status: number; type: string | null; text: string }> {
  const res = await fetch(`http://${host}:${port}/metrics`, { headers });
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
}

describe('who may read /metrics', () => {
  const TOKEN = 'metrics-token-of-this-test-0123456789';
  let plain: TestApi;
  let withToken: TestApi;
  const servers: Server[] = [];

  beforeAll(async () => {
    plain = await startTestApi();
    withToken = await startTestApi({ env: { METRICS_TOKEN: TOKEN } });
  });
  afterAll(async () => {
    for (const s of servers) s.close();
    await plain?.close();
    await withToken?.close();
  });

  it('without METRICS_TOKEN: loopback only, and not through a proxy', async () => {
    const { server, port } = await listen(plain);
    servers.push(server);
    const local = await metrics('127.0.0.1', port);
    expect(local.status).toBe(200);
    expect(local.text).toMatch(/http_request_duration_seconds/);
    // A proxy on this machine forwarding someone else's request.
    for (const header of ['x-forwarded-for', 'forwarded', 'x-real-ip']) {
      const proxied = await metrics('127.0.0.1', port, { [header]: '203.0.113.7' });
      expect({ header, status: proxied.status }).toEqual({ header, status: 401 });
      expect(proxied.type).toMatch(/^application\/problem\+json/);
    }
    if (outsideAddress) {
      const outside = await metrics(outsideAddress, port);
      expect(outside.status).toBe(401);
      expect(JSON.parse(outside.text).detail).toMatch(/loopback/);
    }
  });

  it('with METRICS_TOKEN: the token from anywhere, a wrong one refused', async () => {
    const { server, port } = await listen(withToken);
    servers.push(server);
    const host = outsideAddress ?? '127.0.0.1';
    expect((await metrics(host, port, { authorization: `Bearer ${TOKEN}` })).status).toBe(200);
    expect((await metrics(host, port, { authorization: `Bearer ${TOKEN}x` })).status).toBe(401);
    expect((await metrics('127.0.0.1', port, { authorization: 'Bearer wrong-token', 'x-forwarded-for': '203.0.113.7' })).status).toBe(401);
    expect((await metrics('127.0.0.1', port, { 'x-forwarded-for': '203.0.113.7' })).status).toBe(401);
    if (outsideAddress) expect((await metrics(outsideAddress, port)).status).toBe(401);
  });
});
