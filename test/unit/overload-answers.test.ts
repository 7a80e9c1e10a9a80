import express from 'express';
import request from 'supertest';
import { z } from 'zod';
import { Admission } from '../../shared/commands/admission';
import type { CommandClient } from '../../shared/commands/command-client';
import { createLogger } from '../../shared/logging/logger';
import type { ApiDeps } from '../../services/api/api-deps';
import { errorHandler, NotServedLog } from '../../services/api/http/error-handler';
import { registerRoutes } from '../../services/api/http/register-routes';
import { defineRoute } from '../../services/api/http/route';

/*
 * Under overload a refusal must cost the API little: a command's request is refused by the admission
 * policy before authentication, validation and reads, and refusals are logged as counts, not a line each.
 */

function capturedLog() {
  const lines: Record<string, unknown>[] = [];
  const log = createLogger('warn', 'test', { write: (s: string) => void lines.push(JSON.parse(s)) });
  return { log, lines };
}

describe('answers under overload', () => {
  it('refuses a command route 503 before authenticating it while its command would be refused, and authenticates it otherwise', async () => {
    const admission = new Admission({ maxWaitMs: 1000, maxInFlight: 10, minInFlight: 2, initialServiceMs: 600, partitions: 1, now: () => 0 });
    const commands = { refusal: (name) => admission.refusal(name) } as Pick<CommandClient, 'refusal'> as CommandClient;
    let handled = 0;
    const { log } = capturedLog();
    const app = express();
    app.use(express.json());
    const router = express.Router();
    const route = defineRoute({
      method: 'post',
      path: '/scan',
      operationId: 'Scan',
      summary: 'Scan',
      tags: [],
      access: ['Sorter'],
      command: 'item.scan',
      body: z.object({ barcode: z.string() }),
      handler: () => void handled++,
    });
    registerRoutes(router, [route], { commands, log } as unknown as ApiDeps);
    app.use(router);
    app.use(errorHandler(log));

    // Room for the command: the request is authenticated (and, without a token, refused 401).
    expect((await request(app).post('/scan').send({ barcode: 'X' })).status).toBe(401);
    // At capacity (the one partition waited for is full of new work): 503 with Retry-After at once,
    // before the token (none here) or the body are looked at.
    const admitted = admission.admit('item.scan', 0);
    const refused = await request(app).post('/scan').send({ nothing: true });
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toMatch(/^[12]$/);
    expect(refused.body).toMatchObject({ code: 'service-unavailable' });
    // Work in hand still passes where a new scan is refused: the same policy as the command client's.
    expect(admission.refusal('item.confirm')).toBeNull();
    admitted.done();
    expect((await request(app).post('/scan').send({ barcode: 'X' })).status).toBe(401);
    expect(handled).toBe(0);
  });

  it('logs the first refusal of a code in full and the rest as one count per window', () => {
    const { log, lines } = capturedLog();
    const notServed = new NotServedLog(log, 60_000);
    let full = 0;
    for (let i = 0; i < 1000; i++) notServed.add('service-unavailable', () => void (full++, log.warn({ code: 'service-unavailable' }, 'request not served')));
    notServed.add('command-timeout', () => void (full++, log.warn({ code: 'command-timeout' }, 'request not served')));
    expect(full).toBe(2);
    notServed.flush();
    expect(lines.filter((l) => l.msg === 'more requests not served')).toEqual([expect.objectContaining({ code: 'service-unavailable', requests: 999 })]);
    // A new window: the next one is logged in full again.
    notServed.add('service-unavailable', () => void full++);
    expect(full).toBe(3);
    notServed.flush();
  });
});
