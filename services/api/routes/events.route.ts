import { z } from 'zod';
import { streamWallEvents } from '../events/sse-events';
import { defineRoute, type RouteDef } from '../http/route';
import { idParam } from '../http/validation';

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
    handler: ({ req, res, em, deps, auth, query }) => streamWallEvents(req, res, em, deps, auth.clientId, query.wallId),
  }),
];
