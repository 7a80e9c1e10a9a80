import { z } from 'zod';
import type { RouteDef } from '../http/route';
import { defineRoute } from '../http/route';
import { idParam } from '../http/validation';
import { assertOwnWall, followWall } from '../events/event-stream';
import { trackHubConnection } from '../http/metrics';

const HEARTBEAT_MS = 15_000;

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
    query: z.object({ wallId: idParam, access_token: z.string().optional() }),
    responseContentType: 'text/event-stream',
    errors: ['not-found'],
    handler: async ({ req, res, query, auth, em, deps }) => {
      await assertOwnWall(em, auth.clientId, query.wallId);
      res.status(200).set({ 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'keep-alive', 'X-Accel-Buffering': 'no' });
      res.flushHeaders();
      res.write('retry: 3000\n\n');
      const untrack = trackHubConnection('sse');
      req.on('close', untrack);
      const lastEventId = req.header('last-event-id') ?? undefined;
      const unsubscribe = await followWall(em, deps.events, query.wallId, lastEventId, (event, raw) => {
        res.write(`id: ${event.id}\nevent: ${event.type}\ndata: ${raw}\n\n`);
      });
      const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), HEARTBEAT_MS);
      req.on('close', () => {
        clearInterval(heartbeat);
        void unsubscribe();
      });
    },
  }),
];
