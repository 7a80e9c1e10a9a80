import { z } from 'zod';
import type { RouteDef } from '../http/route';
import { defineRoute } from '../http/route';
import { idParam } from '../http/validation';
import { requestToken, stillAccepted } from '../http/authenticate';
import { followWall, parseLastEventId } from '../events/event-stream';
import { assertWallExists } from '../use-cases/sorting/wall-resolver';
import { trackHubConnection } from '../http/metrics';

export const HEARTBEAT_MS = 15_000;

export const eventsRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: '/events',
    operationId: 'StreamWallEvents',
    summary: "Server-sent events of a wall: what the hub app shows and lights",
    description:
      'One `text/event-stream` message per event (`id`: the event id, `event`: its type, `data`: `{ id, type, occurredAt, clientId, wallId, data }`). Reconnecting with Last-Event-ID replays the published events after it (up to 1000). The token may be sent as `?access_token=` for EventSource. A comment line every 15 s keeps proxies from closing the stream. The same events over WebSocket: `GET /api/v1/events/ws?wallId=N`.',
    tags: ['Events'],
    access: 'authenticated',
    allowQueryToken: true,
    query: z.object({
      wallId: idParam.describe('The wall to follow: one of your company\'s walls'),
      access_token: z.string().optional().describe('The bearer token, for clients that cannot set the Authorization header (EventSource)'),
    }),
    responseContentType: 'text/event-stream',
    errors: ['validation-failed', 'not-found', 'service-unavailable'],
    headers: [{ name: 'Last-Event-ID', description: 'The id (a UUID) of the last event received: the stream first replays the published events after it.' }],
    handler: async ({ req, res, query, auth, em, deps }) => {
      // Everything that can fail runs before the 200: a bad Last-Event-ID is a 400, Redis down a 503.
      const lastEventId = parseLastEventId(req.header('last-event-id'), 'Last-Event-ID', 'header');
      await assertWallExists(em, auth.clientId, query.wallId);
      const follower = await followWall(em, deps.events, query.wallId, lastEventId);
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
      follower.start((event, raw) => write(`id: ${event.id}\nevent: ${event.type}\ndata: ${raw}\n\n`));
      // Access ends for streams too: a deactivated employee's stream closes at the next heartbeat.
      const token = requestToken(req, true)!;
      heartbeat = setInterval(() => {
        write(': keep-alive\n\n');
        void stillAccepted(token, deps).then((ok) => {
          if (!ok && !res.writableEnded) res.end();
        });
      }, HEARTBEAT_MS);
    },
  }),
];
