import type { Request, Response } from 'express';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ApiDeps } from '../api-deps';
import { assertWallExists } from '../commands/wall-resolver';
import { requestToken, stillAccepted } from '../http/authenticate';
import { trackHubConnection } from '../http/metrics';
import { followWall, parseLastEventId } from './event-stream';

/** A comment line this often keeps proxies from closing an idle stream, and re-checks the token's employee. */
export const HEARTBEAT_MS = 15_000;

/**
 * `GET /api/v1/events?wallId=N` (docs/api.md §8): the wall's events as server-sent events on `res`.
 * The WebSocket twin is `websocket-events.ts`.
 */
export async function streamWallEvents(req: Request, res: Response, em: EntityManager, deps: ApiDeps, clientId: number, wallId: number): Promise<void> {
  // Everything that can fail runs before the 200: a bad Last-Event-ID is a 400, Redis down a 503.
  const lastEventId = parseLastEventId(req.header('last-event-id'), 'Last-Event-ID', 'header');
  await assertWallExists(em, clientId, wallId);
  const follower = await followWall(em, deps.events, clientId, wallId, lastEventId);
  // The one release point: 'close' fires when the client goes away or the server ends the response.
  let heartbeat: NodeJS.Timeout | undefined;
  const untrack = trackHubConnection('sse');
  const release = () => {
    clearInterval(heartbeat);
    untrack();
    void follower.stop();
  };
  if (req.socket.destroyed) return release();
  res.once('close', release);
  res.on('error', release);
  const write = (chunk: string) => {
    if (!res.writableEnded && !res.destroyed) res.write(chunk);
  };
  res.status(200).set({ 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'keep-alive', 'X-Accel-Buffering': 'no' });
  res.flushHeaders();
  write('retry: 3000\n\n');
  // Ended when it cannot be kept complete after a gap in the live feed: EventSource reconnects with Last-Event-ID.
  follower.start(
    (raw, parsed) => {
      const event = parsed();
      write(`id: ${event.id}\nevent: ${event.type}\ndata: ${raw}\n\n`);
    },
    () => {
      if (!res.writableEnded) res.end();
    },
  );
  // Access ends for streams too: a deactivated employee's stream closes at the next heartbeat.
  const token = requestToken(req, true)!;
  heartbeat = setInterval(() => {
    write(': keep-alive\n\n');
    void stillAccepted(token, deps).then((ok) => {
      if (!ok && !res.writableEnded) res.end();
    });
  }, HEARTBEAT_MS);
}
