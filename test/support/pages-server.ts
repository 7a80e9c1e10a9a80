import type { IncomingMessage, Server } from 'node:http';
import { createExpressServer } from '../../services/api/http/express-server';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { chromium, type Browser } from 'playwright-core';
import { attachWebSocketEvents } from '../../services/api/events/websocket-events';
import type { TestApi } from './test-api';

// Debian's chromium (.ci/run installs it); playwright-core drives it, no browser download.
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
}

export interface PagesServer {
  server: Server;
  /** http://127.0.0.1:<port> */
  base: string;
  close(): Promise<void>;
}

/**
 * The test API on a real HTTP port, for a browser: the pages, the API and the event WebSocket.
 * `beforeUpgrade` runs before the event stream's own upgrade handler (a test that cuts connections).
 */
export async function servePages(api: TestApi, opts: { beforeUpgrade?: (req: IncomingMessage, socket: Duplex) => void } = {}): Promise<PagesServer> {
  const server = createExpressServer(api.app);
  if (opts.beforeUpgrade) server.on('upgrade', opts.beforeUpgrade);
  const closeWs = attachWebSocketEvents(server, api.deps);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    server,
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      await closeWs();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
