import { z } from 'zod';
import { streamWallEvents } from '../events/sse-events';
import { recentEvents } from '../events/event-stream';
import { RECENT_LIMIT_MAX } from '../events/event-stream.queries';
import { assertWallExists } from '../commands/wall-resolver';
import { defineRoute, type RouteDef } from '../http/route';
import { idParam } from '../http/validation';

/** An event as the stream sends it (docs/api.md §8). */
export const wallEventDto = z.object({
  id: z.string().describe('The event id (a UUID): the lastEventId to follow the stream from'),
  type: z.string().describe("The event type, e.g. 'sort-box-item.created'"),
  occurredAt: z.string().describe('ISO 8601 UTC'),
  clientId: z.number().int(),
  wallId: z.number().int().nullable(),
  data: z.record(z.string(), z.unknown()).describe("The type's data, as the stream and the webhooks carry it"),
});

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
  defineRoute({
    method: 'get',
    path: '/events/recent',
    operationId: 'ListRecentWallEvents',
    summary: "List a wall's last events: what a hub's feed shows on open",
    description:
      'The last `limit` events of the wall (default 40, at most 200) as the event stream sends them, oldest first, while they are kept (OUTBOX_RETENTION_DAYS). ' +
      'A hub fills its feed with them, then opens the stream with `lastEventId` = the last one\'s id: nothing falls between the two and nothing shows twice.',
    tags: ['Events'],
    access: 'authenticated',
    query: z.object({
      wallId: idParam.describe("The wall: one of your company's walls"),
      limit: z.coerce.number().int().min(1).max(RECENT_LIMIT_MAX).default(40).describe(`How many events, newest kept (1-${RECENT_LIMIT_MAX})`),
    }),
    response: z.array(wallEventDto),
    errors: ['validation-failed', 'not-found'],
    handler: async ({ em, auth, query }) => {
      await assertWallExists(em, auth.clientId, query.wallId);
      return recentEvents(em, auth.clientId, query.wallId, query.limit);
    },
  }),
];
