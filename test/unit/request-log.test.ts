import type { AddressInfo } from 'node:net';
import express from 'express';
import { REDACTED } from '../../shared/logging/redact';
import { requestLogger, requestLogLevel } from '../../services/api/http/request-log';
import { createLogger } from '../../shared/logging/logger';
import { recordingLogger } from '../support/log-sink';

/* The API's access log (services/api/http/request-log.ts): which requests get a line, and what it holds. */

/** An app whose routes answer the status in their path, its access log's lines. */
async function logged(level: string, paths: string[]): Promise<Record<string, unknown>[]> {
  const { log, records: lines } = recordingLogger(level, 'api');
  const logRequest = requestLogger(log);
  const app = express();
  app.use((req, res, next) => {
    (req as { id?: string }).id = 'r-1';
    logRequest?.(req, res);
    next();
  });
  app.get('/status/:code', (req, res) => void res.status(Number(req.params.code)).json({}));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  try {
    const { port } = server.address() as AddressInfo;
    for (const p of paths) await (await fetch(`http://127.0.0.1:${port}${p}`)).text();
  } finally {
    await new Promise((r) => server.close(r));
  }
  return lines;
}

describe('the access log', () => {
  it('writes nothing for a success or a counted refusal at info, a line for a client error and for a server error', async () => {
    const lines = await logged('info', ['/status/200', '/status/201', '/status/503', '/status/504', '/status/404?access_token=abc', '/status/500']);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({ level: 30, msg: 'request completed', role: 'api', req: { id: 'r-1', method: 'GET', url: `/status/404?access_token=${REDACTED}` }, res: { statusCode: 404 } });
    expect(typeof lines[0]!.responseTime).toBe('number');
    expect(lines[1]).toMatchObject({ level: 50, msg: 'request errored', req: { url: '/status/500' }, res: { statusCode: 500 }, err: { message: 'failed with status code 500' } });
  });

  it('writes successes too at debug, and no request at warn', async () => {
    expect((await logged('debug', ['/status/200'])).map((l) => [l.level, l.msg])).toEqual([[20, 'request completed']]);
    expect(requestLogger(createLogger('warn', 'api'))).toBeNull();
  });

  it('picks the level from the status', () => {
    expect([200, 302, 400, 404, 429, 500, 502, 503, 504].map((s) => requestLogLevel(s, false))).toEqual(['debug', 'debug', 'info', 'info', 'info', 'error', 'error', 'silent', 'silent']);
    expect(requestLogLevel(200, true)).toBe('error');
  });
});
