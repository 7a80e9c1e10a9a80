import http from 'node:http';
import v8 from 'node:v8';
import { PerformanceObserver, constants, type PerformanceEntry } from 'node:perf_hooks';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createExpressServer } from '../../services/api/http/express-server';

/*
 * What an Express app's finished requests leave in V8's old generation, on the server the API uses
 * (`createExpressServer`) or on a bare `http.createServer(app)` (argument `bare`): the old space's growth
 * over REQUESTS requests, kept alive one after another, divided by their number. An object that dies
 * young never reaches the old space; one kept through two young collections is copied there. Run with
 * `node --expose-gc --no-memory-reducer --initial-old-space-size=256 --import tsx` (no full collection in
 * between); prints `{ requests, promotedBytesPerRequest, fullCollections }` as JSON.
 */

const REQUESTS = 3000;

async function main(): Promise<void> {
  const gc = (globalThis as { gc?: (o?: { type: 'minor' | 'major' }) => void }).gc;
  if (!gc) throw new Error('run with --expose-gc');
  const app = express();
  app.get('/thing', (req, res) => {
    res.json({ q: req.query.q ?? null });
  });
  const server = process.argv.includes('bare') ? http.createServer(app) : createExpressServer(app);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as AddressInfo;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  const get = () =>
    new Promise<void>((resolve, reject) => {
      http.get({ host: '127.0.0.1', port, path: '/thing?q=1', agent }, (res) => res.resume().on('end', resolve)).on('error', reject);
    });
  const oldSpace = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'old_space')!.space_used_size;
  let fullCollections = 0;
  const gcs = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) if ((e as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) fullCollections++;
  });
  // Warm: the code compiled, the connections open; then a clean old space.
  for (let i = 0; i < 200; i++) await get();
  gc();
  gcs.observe({ entryTypes: ['gc'] });
  const before = oldSpace();
  await Promise.all(Array.from({ length: 4 }, async () => {
    for (let i = 0; i < REQUESTS / 4; i++) await get();
  }));
  const grown = oldSpace() - before;
  await new Promise((r) => setImmediate(r));
  gcs.disconnect();
  agent.destroy();
  await new Promise<void>((r) => server.close(() => r()));
  process.stdout.write(`${JSON.stringify({ requests: REQUESTS, promotedBytesPerRequest: Math.round(grown / REQUESTS), fullCollections })}\n`);
}

void main();
