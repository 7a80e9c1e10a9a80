import { connect } from 'node:net';
import { performance } from 'node:perf_hooks';
import { spawnApiProcess, stopApiProcess, type ApiProcess } from '../support/api-process';
import { newTenant, signedInEmployee, useTestApi, type Tenant } from '../support/test-api';

/*
 * Body limits per route (docs/api.md §1, "Body limits"): sign-in and the small commands take a few KB
 * and answer 413 problem+json for more before the body is read; the bulk loads take 10 MB, read only
 * after authentication. Several 9 MB bodies at POST /token do not hold up anything else.
 */

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Body bytes this client had written when the answer arrived. */
  sentWhenAnswered: number;
  closedByServer: boolean;
}

/**
 * One request on its own connection: the head, then `send` bytes of the body (declared `length`, or
 * chunked when `length` is null) and nothing more unless `all`; resolves with the answer once the
 * server has answered (and closed, or kept, the connection).
 */
function raw(port: number, opts: { method?: string; path: string; length: number | null; send: number; all?: boolean; headers?: Record<string, string> }): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    let sent = 0;
    let answer: RawAnswer | undefined;
    const head = [
      `${opts.method ?? 'POST'} ${opts.path} HTTP/1.1`,
      'Host: 127.0.0.1',
      'Content-Type: application/json',
      opts.length === null ? 'Transfer-Encoding: chunked' : `Content-Length: ${opts.length}`,
      ...Object.entries(opts.headers ?? {}).map(([k, v]) => `${k}: ${v}`),
      '',
      '',
    ].join('\r\n');
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within 30 s (${received.slice(0, 200)})`));
    }, 30_000);
    const finish = (closed: boolean) => {
      if (!answer) return;
      clearTimeout(timer);
      answer.closedByServer = closed;
      socket.destroy();
      resolve(answer);
    };
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1');
      const end = received.indexOf('\r\n\r\n');
      if (end < 0 || answer) return;
      const [status, ...lines] = received.slice(0, end).split('\r\n');
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      const length = Number(headers['content-length'] ?? 0);
      if (received.length < end + 4 + length) {
        answer = undefined;
        return;
      }
      answer = { status: Number(status!.split(' ')[1]), headers, body: received.slice(end + 4, end + 4 + length), sentWhenAnswered: sent, closedByServer: false };
      if (headers.connection !== 'close') finish(false);
    });
    socket.on('close', () => finish(true));
    socket.on('end', () => finish(true));
    socket.on('error', () => finish(true));
    socket.on('connect', () => {
      socket.write(head);
      const total = opts.all ? (opts.length ?? opts.send) : opts.send;
      const piece = Buffer.alloc(64 * 1024, 'x');
      const pump = () => {
        while (sent < total && !socket.destroyed) {
          const n = Math.min(piece.length, total - sent);
          const chunk = piece.subarray(0, n);
          sent += n;
          const ok = opts.length === null ? socket.write(`${n.toString(16)}\r\n`) && socket.write(chunk) && socket.write('\r\n') : socket.write(chunk);
          if (!ok) {
            socket.once('drain', pump);
            return;
          }
        }
      };
      pump();
    });
  });
}

describe('body limits', () => {
  const api = useTestApi();
  let service: ApiProcess;
  let tenant: Tenant;
  const NINE_MB = 9 * 1024 * 1024;

  beforeAll(async () => {
    tenant = await newTenant(api);
    service = await spawnApiProcess();
  }, 120_000);
  afterAll(async () => {
    if (service) await stopApiProcess(service);
  });

  it('answers a sign-in body that declares 9 MB with 413 problem+json before reading it', async () => {
    const a = await raw(service.port, { path: '/token', length: NINE_MB, send: 1024 });
    expect(a.status).toBe(413);
    expect(a.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(JSON.parse(a.body)).toMatchObject({ code: 'payload-too-large', status: 413 });
    expect(JSON.parse(a.body).detail).toMatch(/limit of 8 KB/);
    // Answered with 1 KB of the 9 MB sent, and the connection closed: the rest is never read.
    expect(a.sentWhenAnswered).toBe(1024);
    expect(a.headers.connection).toBe('close');
    expect(a.closedByServer).toBe(true);
  });

  it('refuses a chunked sign-in body at the limit, without reading the rest', async () => {
    const a = await raw(service.port, { path: '/token', length: null, send: 64 * 1024 });
    expect(a.status).toBe(413);
    expect(JSON.parse(a.body).code).toBe('payload-too-large');
    expect(a.closedByServer).toBe(true);
  });

  it('keeps small bodies to a few KB on the commands, and accepts what they need', async () => {
    const big = JSON.stringify({ username: tenant.adminEmail, password: tenant.password, padding: 'x'.repeat(20_000) });
    const res = await fetch(`http://127.0.0.1:${service.port}/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: big });
    expect(res.status).toBe(413);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    await res.arrayBuffer();
    const scan = await fetch(`http://127.0.0.1:${service.port}/api/v1/sort-box-items`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: tenant.auth },
      body: JSON.stringify({ sessionToken: 'x', barcode: 'y', padding: 'x'.repeat(20_000) }),
    });
    expect(scan.status).toBe(413);
    await scan.arrayBuffer();
    const ok = await fetch(`http://127.0.0.1:${service.port}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: tenant.adminEmail, password: tenant.password }),
    });
    expect(ok.status).toBe(200);
    await ok.arrayBuffer();
  });

  it('reads a bulk load only for an authenticated Admin, and takes megabytes from one', async () => {
    // No token, and a Sorter's token: refused before the body is read.
    const anonymous = await raw(service.port, { method: 'PUT', path: '/api/v1/admin/products', length: NINE_MB, send: 1024 });
    expect(anonymous.status).toBe(401);
    expect(anonymous.sentWhenAnswered).toBe(1024);
    expect(anonymous.closedByServer).toBe(true);
    const sorter = await signedInEmployee(api, tenant, { roles: ['Sorter'] });
    const forbidden = await raw(service.port, { method: 'PUT', path: '/api/v1/admin/products', length: NINE_MB, send: 1024, headers: { Authorization: sorter.auth } });
    expect(forbidden.status).toBe(403);
    expect(forbidden.sentWhenAnswered).toBe(1024);
    // The Admin's 1,000 products (far over the small limit) load.
    const rows = Array.from({ length: 1000 }, (_, i) => ({ sku: `BULK-${i}`, title: `Bulk product number ${i} ${'with a long title '.repeat(10)}`, sitePrice: 1, stopLossPrice: 1 }));
    const body = JSON.stringify(rows);
    expect(body.length).toBeGreaterThan(200_000);
    const res = await fetch(`http://127.0.0.1:${service.port}/api/v1/admin/products`, { method: 'PUT', headers: { 'content-type': 'application/json', authorization: tenant.auth }, body });
    expect(res.status).toBe(200);
    await res.arrayBuffer();
  });

  it('keeps /healthz answering within 100 ms (median) while several 9 MB bodies go to /token', async () => {
    const FLOODERS = 6;
    const ROUNDS = 4;
    let flooding = true;
    const statuses: number[] = [];
    const flood = Promise.all(
      Array.from({ length: FLOODERS }, async () => {
        for (let i = 0; i < ROUNDS; i++) {
          const a = await raw(service.port, { path: '/token', length: NINE_MB, send: NINE_MB, all: true });
          statuses.push(a.status);
        }
      }),
    ).finally(() => {
      flooding = false;
    });
    const latencies: number[] = [];
    let failed = 0;
    while (flooding || latencies.length < 20) {
      const t0 = performance.now();
      try {
        const res = await fetch(`http://127.0.0.1:${service.port}/healthz`, { signal: AbortSignal.timeout(5_000) });
        await res.arrayBuffer();
        if (res.status === 200) latencies.push(performance.now() - t0);
        else failed++;
      } catch {
        failed++;
      }
      await new Promise((r) => setTimeout(r, 10));
    }
    await flood;
    latencies.sort((a, b) => a - b);
    const p50 = latencies[Math.floor(latencies.length / 2)]!;
    const max = latencies[latencies.length - 1]!;
    expect(statuses).toEqual(Array(FLOODERS * ROUNDS).fill(413));
    expect(failed).toBe(0);
    expect({ p50: p50 < 100, max: max < 2000 }).toEqual({ p50: true, max: true });
    // eslint-disable-next-line no-console
    console.log(`/healthz during the flood: ${latencies.length} answers, p50 ${p50.toFixed(1)} ms, max ${max.toFixed(1)} ms`);
  }, 120_000);
});
