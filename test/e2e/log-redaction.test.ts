import { randomBytes } from 'node:crypto';
import WebSocket from 'ws';
import { REDACTED } from '../../shared/logging/redact';
import { logRecords, spawnApiProcess, stopApiProcess, type ApiProcess } from '../support/api-process';
import { buildFloor, type Floor } from '../support/sorting-floor';
import { uniqueSuffix, useTestApi } from '../support/test-api';
import { spawnWorkerProcess, stopWorkerProcess, waitUntilReady, workerOutput, type WorkerProcess } from '../support/worker-process';

/*
 * No secret in a log line or an echoed answer (docs/operations.md, "Logs"): the real API and a sorting
 * worker run as processes logging every request (debug); each secret is sent in every place a client
 * can put one (query, header, body, path), refused and accepted; then their whole output, the problem
 * answers, the queue dashboard's job data and the metrics are searched for the values.
 */
describe('secrets never reach a log line, a problem answer, the queue dashboard or a metric', () => {
  const api = useTestApi();
  let floor: Floor;
  let apiProcess: ApiProcess;
  let worker: WorkerProcess;
  /** Every refusal (4xx, 5xx): its status, headers and problem. (Successes may carry a caller's own session token.) */
  const answers: string[] = [];
  const secrets: Record<string, string> = {};
  let base = '';

  const call = async (method: string, path: string, opts: { auth?: string; headers?: Record<string, string>; body?: unknown; raw?: string; keep?: boolean } = {}) => {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.auth) headers.authorization = opts.auth;
    if (opts.body !== undefined || opts.raw !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${base}${path}`, { method, headers, body: opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body)) });
    const text = await res.text();
    if (opts.keep !== false && res.status >= 400) answers.push(`${method} ${res.status} ${JSON.stringify([...res.headers])} ${text}`);
    return { status: res.status, text, json: () => JSON.parse(text) as Record<string, any>, headers: res.headers };
  };

  beforeAll(async () => {
    floor = await buildFloor(api, { orders: [{ id: 41, items: [{ sku: 'SKU-A', qty: 3 }] }] });
    apiProcess = await spawnApiProcess({ LOG_LEVEL: 'debug', QUEUE_DASHBOARD_ADMINS: floor.tenant.adminEmail });
    base = `http://127.0.0.1:${apiProcess.port}`;
    worker = spawnWorkerProcess('sorting', { env: { LOG_LEVEL: 'debug' } });
    await waitUntilReady(worker, 60_000);

    const admin = `Bearer ${floor.tenant.adminToken}`;
    secrets.accessToken = floor.tenant.adminToken;
    secrets.password = floor.tenant.password;
    secrets.pin = `P${randomBytes(4).toString('hex').toUpperCase()}`;
    secrets.wrongPin = `W${randomBytes(4).toString('hex').toUpperCase()}`;
    secrets.webhookSecret = `whsec_${randomBytes(32).toString('base64')}`;
    secrets.refusedWebhookSecret = `whsec_${randomBytes(32).toString('base64')}`;
    secrets.newPassword = `np-${randomBytes(8).toString('hex')}`;
    secrets.autoLoginToken = randomBytes(32).toString('base64url');
    const sorter = await floor.sorter(1);

    expect((await call('PUT', '/api/v1/admin/security/pin', { auth: admin, body: { pin: secrets.pin, enforcement: 'server' }, keep: false })).status).toBe(200);
    // The subscription's answer holds the secret by design (the Admin set it): not searched.
    expect((await call('POST', '/api/v1/admin/webhooks', { auth: admin, body: { url: 'https://hooks.example.com/sorting', events: ['*'], secret: secrets.webhookSecret }, keep: false })).status).toBe(200);
    const connected = await call('POST', `/api/v1/walls/${floor.wallId}/sessions`, { auth: sorter.auth, keep: false });
    expect(connected.status).toBe(200);
    secrets.sessionToken = connected.json().token;

    // ---- query parameters
    expect((await call('GET', `/api/v1/events?wallId=999999&access_token=${secrets.accessToken}`)).status).toBe(404);
    expect((await call('GET', `/api/v1/events?wallId=abc&ACCESS_TOKEN=${secrets.accessToken}`)).status).toBe(401);
    expect((await call('GET', `/api/v1/walls?token=${secrets.accessToken}&x=1`, { auth: admin })).status).toBe(200);
    expect((await call('GET', `/api/v1/no-such-thing?password=${encodeURIComponent(secrets.password)}&secret=${encodeURIComponent(secrets.webhookSecret)}&sessionToken=${secrets.sessionToken}&pin=${secrets.pin}`, { auth: admin })).status).toBe(404);
    expect((await call('GET', `/api/v1/walls/${floor.wallId}?sessionToken=${secrets.sessionToken}&units=abc`, { auth: sorter.auth })).status).toBe(200);
    // The sixth wrong PIN of one employee is a 429: a refused request, logged.
    const guesser = await floor.sorter(2);
    for (let i = 0; i < 5; i++) expect((await call('POST', `/api/v1/security/pin/validate?pin=${secrets.wrongPin}`, { auth: guesser.auth })).json()).toEqual({ valid: false });
    const limited = await call('POST', `/api/v1/security/pin/validate?pin=${secrets.wrongPin}`, { auth: guesser.auth });
    expect(limited.status).toBe(429);
    expect(limited.json().instance).toBe(`/api/v1/security/pin/validate?pin=${REDACTED}`);
    expect((await call('POST', `/api/v1/security/pin/validate?pin=${secrets.pin}`, { auth: admin })).status).toBe(200);

    // ---- headers
    expect((await call('GET', '/api/v1/no-such-thing', { auth: admin })).status).toBe(404);
    expect((await call('GET', '/api/v1/walls', { auth: `Bearer ${secrets.accessToken}x` })).status).toBe(401);
    expect((await call('GET', '/admin/queues', { headers: { cookie: `queue_dashboard=${secrets.accessToken}` } })).status).toBe(401);
    const scanned = await call('POST', '/api/v1/sort-box-items', { auth: sorter.auth, body: { sessionToken: secrets.sessionToken, barcode: 'SKU-A' } });
    expect(scanned.status).toBe(200);
    const itemId = scanned.json().id as number;
    expect((await call('PATCH', `/api/v1/sort-box-items/${itemId}/cancel`, { auth: sorter.auth, headers: { 'x-pin': secrets.wrongPin } })).status).toBe(403);
    expect((await call('PATCH', `/api/v1/sort-box-items/${itemId}/cancel`, { auth: admin, headers: { 'X-Pin': secrets.pin } })).status).toBe(200);

    // ---- bodies
    expect((await call('POST', '/token', { body: { username: floor.tenant.adminEmail, password: `${secrets.password}x` } })).status).toBe(401);
    expect((await call('POST', '/token', { body: { username: secrets.password, password: secrets.password } })).status).toBe(401);
    const malformed = await call('POST', '/token', { raw: `{"username":"${floor.tenant.adminEmail}","password": ${secrets.password}}` });
    expect(malformed.status).toBe(400);
    expect(malformed.json().detail).toMatch(/^The request body is not valid JSON/);
    expect((await call('POST', '/token', { raw: `{"password":"${secrets.password}"` })).status).toBe(400);
    expect((await call('POST', '/api/v1/sort-box-items', { auth: sorter.auth, body: { sessionToken: secrets.sessionToken, barcode: 'NO-SUCH-PRODUCT' } })).status).toBe(422);
    expect((await call('POST', '/api/v1/sort-box-items', { auth: sorter.auth, body: { sessionToken: `${secrets.sessionToken}x`, barcode: 'SKU-A' } })).status).toBeGreaterThanOrEqual(400);
    expect((await call('POST', '/api/v1/admin/employees', { auth: admin, body: { email: 'not-an-email', firstName: 'N', lastName: 'P', password: secrets.newPassword, roles: ['Sorter'] } })).status).toBe(400);
    expect((await call('POST', '/api/v1/admin/employees', { auth: admin, body: { email: `np-${uniqueSuffix()}@example.com`, firstName: 'N', lastName: 'P', password: secrets.newPassword, roles: ['Sorter'] } })).status).toBe(200);
    expect((await call('PUT', '/api/v1/admin/security/pin', { auth: admin, body: { pin: `${secrets.wrongPin}!!`, enforcement: 'server' } })).status).toBe(400);
    expect((await call('POST', '/api/v1/auto-login/redeem', { body: { token: secrets.autoLoginToken } })).status).toBe(401);
    expect((await call('POST', '/api/v1/admin/webhooks', { auth: admin, body: { url: 'http://127.0.0.1/hook', events: ['*'], secret: secrets.refusedWebhookSecret } })).status).toBe(400);

    // ---- the session token in a path (renew, stop, stop again, malformed, unknown operation)
    expect((await call('PUT', `/api/v1/walls/${floor.wallId}/sessions/${secrets.sessionToken}`, { auth: sorter.auth })).status).toBe(200);
    expect((await call('DELETE', `/api/v1/walls/${floor.wallId}/sessions/${secrets.sessionToken}`, { auth: sorter.auth })).status).toBe(200);
    const again = await call('DELETE', `/api/v1/walls/${floor.wallId}/sessions/${secrets.sessionToken}`, { auth: sorter.auth });
    expect(again.status).toBe(409);
    expect(again.json().instance).toBe(`/api/v1/walls/${floor.wallId}/sessions/${REDACTED}`);
    expect((await call('PUT', `/api/v1/walls/abc/sessions/${secrets.sessionToken}`, { auth: sorter.auth })).status).toBe(400);
    expect((await call('GET', `/api/v1/walls/${floor.wallId}/sessions/${secrets.sessionToken}/extra`, { auth: sorter.auth })).status).toBe(404);

    // ---- a refused WebSocket with the token in its query
    const refusal = await new Promise<number>((resolve) => {
      const ws = new WebSocket(`${base.replace('http', 'ws')}/api/v1/events/ws?wallId=999999&access_token=${secrets.accessToken}`);
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.on('error', () => resolve(-1));
    });
    expect(refusal).toBe(404);
  }, 180_000);

  afterAll(async () => {
    if (worker) await stopWorkerProcess(worker);
    if (apiProcess) await stopApiProcess(apiProcess);
  });

  it('the queue dashboard shows the jobs\' data and answers without their secrets', async () => {
    const session = await fetch(`${base}/admin/queues/session`, { method: 'POST', headers: { authorization: `Bearer ${floor.tenant.adminToken}` } });
    expect(session.status).toBe(200);
    const cookie = session.headers.get('set-cookie')!.split(';')[0]!;
    const list = (await (await fetch(`${base}/admin/queues/api/queues`, { headers: { cookie } })).json()) as { queues: { name: string; counts: Record<string, number> }[] };
    const busy = list.queues.filter((q) => q.name.includes('wall-commands') && q.counts.completed > 0);
    expect(busy.length).toBeGreaterThan(0);
    const shown: string[] = [];
    for (const q of busy) {
      const res = await fetch(`${base}/admin/queues/api/queues?activeQueue=${encodeURIComponent(q.name)}&status=completed&page=1&jobsPerPage=50`, { headers: { cookie } });
      shown.push(await res.text());
    }
    const text = shown.join('\n');
    // The scans' and the renew's job data name the session token: shown redacted.
    expect(text).toContain(`"sessionToken":"${REDACTED}"`);
    expect(text).toContain(`"token":"${REDACTED}"`);
    for (const [name, value] of Object.entries(secrets)) expect({ name, found: text.includes(value) }).toEqual({ name, found: false });
  });

  it('the metrics name no secret', async () => {
    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(metrics).toContain('http_request_duration_seconds');
    for (const [name, value] of Object.entries(secrets)) expect({ name, found: metrics.includes(value) }).toEqual({ name, found: false });
  });

  it('no log line of the API or the worker, and no problem answer, holds a secret', async () => {
    // Everything the processes wrote so far, with every request of the run logged.
    await stopWorkerProcess(worker);
    await stopApiProcess(apiProcess);
    const logs = `${apiProcess.output}\n${worker.output}`;
    expect(logRecords(apiProcess).filter((r) => r.req).length).toBeGreaterThan(30);
    expect(Object.keys(secrets)).toHaveLength(9);
    for (const [name, value] of Object.entries(secrets)) {
      expect({ name, inLogs: logs.includes(value), inAnswers: answers.filter((a) => a.includes(value)).map((a) => a.slice(0, 300)) }).toEqual({ name, inLogs: false, inAnswers: [] });
    }
    // Not vacuous: the refused requests were logged, with their secrets replaced.
    expect(logs).toContain(`access_token=${REDACTED}`);
    expect(logs).toContain(`/security/pin/validate?pin=${REDACTED}`);
    expect(logs).toContain(`/sessions/${REDACTED}`);
    expect(logs).toContain(`password=${REDACTED}`);
    expect(workerOutput([worker])).toContain('command workers started');
  });
});
