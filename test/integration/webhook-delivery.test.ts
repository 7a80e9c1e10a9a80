import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { startTestApi, waitFor, type TestApi } from '../support/test-api';
import { buildFloor, connect, scan, type Floor } from '../support/sorting-floor';

interface Received {
  headers: IncomingHttpHeaders;
  raw: string;
  body: { id: string; type: string; clientId: number; wallId: number; occurredAt: string; data: Record<string, any> };
}

/** A local webhook receiver; `answer(n)` gives the status of the n-th request (0-based). */
async function receiver(answer: (n: number) => number = () => 200): Promise<{ url: string; received: Received[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const status = answer(received.length);
      received.push({ headers: req.headers, raw, body: JSON.parse(raw) });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hook`, received, close: () => new Promise((r) => server.close(() => r())) };
}

/** Verifies like the Standard Webhooks libraries do, written out here (the package is not installed). */
function expectValidSignature(r: Received, secret: string): void {
  const id = r.headers['webhook-id'] as string;
  const timestamp = r.headers['webhook-timestamp'] as string;
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${r.raw}`).digest('base64');
  const signatures = String(r.headers['webhook-signature']).split(' ');
  expect(signatures).toContain(`v1,${expected}`);
  expect(Math.abs(Date.now() / 1000 - Number(timestamp))).toBeLessThan(300);
}

describe('webhook deliveries: the webhooks worker POSTs each relayed event, signed, with retries', () => {
  let api: TestApi;
  beforeAll(async () => {
    process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS = 'true';
    process.env.WEBHOOK_RETRY_BASE_MS = '50';
    api = await startTestApi({ workers: ['sorting', 'outbox', 'webhooks'] });
  });
  afterAll(async () => {
    await api.close();
    delete process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS;
    delete process.env.WEBHOOK_RETRY_BASE_MS;
  });

  async function subscribe(floor: Floor, url: string, events: string[]) {
    const res = await request(api.app).post('/api/v1/admin/webhooks').set('Authorization', floor.tenant.auth).send({ url, events });
    expect(res.status).toBe(200);
    return res.body as { id: number; secret: string };
  }

  const deliveries = async (floor: Floor, id: number) =>
    (await request(api.app).get(`/api/v1/admin/webhooks/${id}/deliveries`).set('Authorization', floor.tenant.auth)).body as Record<string, any>[];

  it('delivers session.started and sort-box-item.created with Standard Webhooks headers, and lists each delivery', async () => {
    const hook = await receiver();
    try {
      const floor = await buildFloor(api, { orders: [{ id: 1, items: [{ sku: 'SKU-A', qty: 1 }] }] });
      const sub = await subscribe(floor, hook.url, ['session.started', 'sort-box-item.created']);
      const a = await floor.sorter(1);
      const { body: s } = await connect(api, floor, a.auth);
      const item = await scan(api, a.auth, s.token, 'SKU-A');
      expect(item.status).toBe(200);
      await waitFor(() => hook.received.length >= 2, { what: 'two webhooks' });
      expect(hook.received.map((r) => r.body.type).sort()).toEqual(['session.started', 'sort-box-item.created']);
      for (const r of hook.received) {
        expect(r.headers['content-type']).toBe('application/json');
        // The receiver can tell who calls it: the service and its version.
        expect(r.headers['user-agent']).toMatch(/^sorting-wall-service\/\d+\.\d+\.\d+ \(webhooks\)$/);
        expect(r.headers['webhook-id']).toBe(r.body.id);
        expect(r.body).toMatchObject({ clientId: floor.tenant.clientId, wallId: floor.wallId });
        expectValidSignature(r, sub.secret);
      }
      const created = hook.received.find((r) => r.body.type === 'sort-box-item.created')!;
      expect(created.body.data).toMatchObject({ color: 'Red', sortBox: { crc: item.body.crc }, item: { id: item.body.id } });

      const rows = await waitFor(async () => {
        const d = await deliveries(floor, sub.id);
        return d.length === 2 && d.every((x) => x.status === 'succeeded') ? d : undefined;
      }, { what: 'two succeeded deliveries' });
      expect(rows.map((d) => d.eventId).sort()).toEqual(hook.received.map((r) => r.body.id).sort());
      for (const d of rows) expect(d).toMatchObject({ subscriptionId: sub.id, attempt: 1, responseStatus: 200, error: null, nextAttemptAt: null, durationMs: expect.any(Number) });
    } finally {
      await hook.close();
    }
  });

  it('retries a 500 with the same webhook-id and lists both attempts', async () => {
    const hook = await receiver((n) => (n === 0 ? 500 : 200));
    try {
      const floor = await buildFloor(api);
      const sub = await subscribe(floor, hook.url, ['session.started']);
      const a = await floor.sorter(1);
      expect((await connect(api, floor, a.auth)).status).toBe(200);
      await waitFor(() => hook.received.length >= 2, { what: 'a retried webhook' });
      expect(hook.received[1]!.headers['webhook-id']).toBe(hook.received[0]!.headers['webhook-id']);
      expect(hook.received[1]!.raw).toBe(hook.received[0]!.raw);
      expectValidSignature(hook.received[1]!, sub.secret);

      const rows = await waitFor(async () => {
        const d = await deliveries(floor, sub.id);
        return d.length === 2 && d[0]!.status === 'succeeded' ? d : undefined;
      }, { what: 'two delivery rows' });
      expect(rows[0]).toMatchObject({ attempt: 2, status: 'succeeded', responseStatus: 200, eventType: 'session.started' });
      expect(rows[1]).toMatchObject({ attempt: 1, status: 'failed', responseStatus: 500, error: expect.stringContaining('500'), nextAttemptAt: expect.any(String) });
      expect(rows[0]!.eventId).toBe(rows[1]!.eventId);
      expect(hook.received).toHaveLength(2);
    } finally {
      await hook.close();
    }
  });

  it('does not send events of types the subscription did not ask for', async () => {
    const wanted = await receiver();
    const other = await receiver();
    try {
      const floor = await buildFloor(api);
      await subscribe(floor, wanted.url, ['*']);
      await subscribe(floor, other.url, ['sort-box.released']);
      const a = await floor.sorter(1);
      expect((await connect(api, floor, a.auth)).status).toBe(200);
      await waitFor(() => wanted.received.length >= 1, { what: 'the session.started webhook' });
      expect(wanted.received[0]!.body.type).toBe('session.started');
      // The outbox relays an event's webhooks in one batch: once one receiver has it, the other's job would exist too.
      expect(other.received).toHaveLength(0);
    } finally {
      await wanted.close();
      await other.close();
    }
  });
});
