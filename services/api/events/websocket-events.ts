import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { AppError } from '../../../shared/errors/app-error';
import { verifyAccessToken } from '../../../shared/auth/jwt';
import type { ApiDeps } from '../api-deps';
import { assertOwnWall, followWall } from './event-stream';
import { trackHubConnection } from '../http/metrics';

export const WEBSOCKET_EVENTS_PATH = '/api/v1/events/ws';

function refuse(socket: Duplex, err: AppError): void {
  const body = JSON.stringify(err.toProblem(WEBSOCKET_EVENTS_PATH));
  socket.end(
    `HTTP/1.1 ${err.status} ${err.code}\r\nContent-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/**
 * `GET /api/v1/events/ws?wallId=N` (docs/api.md §8): each event of the wall as one JSON text message.
 * The token comes in the Authorization header or `?access_token=`; `?lastEventId=` replays as SSE does.
 */
export function attachWebSocketEvents(server: Server, deps: ApiDeps): () => Promise<void> {
  const wss = new WebSocketServer({ noServer: true });
  const onUpgrade = async (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== WEBSOCKET_EVENTS_PATH) return socket.destroy();
    try {
      const header = req.headers.authorization;
      const token = header?.match(/^Bearer\s+(.+)$/i)?.[1] ?? url.searchParams.get('access_token') ?? undefined;
      const claims = token ? verifyAccessToken(token, deps.config.JWT_SECRET) : null;
      if (!claims) throw new AppError('unauthorized', 'A valid bearer token is required (Authorization header or access_token parameter).');
      const wallId = Number(url.searchParams.get('wallId'));
      if (!Number.isInteger(wallId) || wallId < 1) {
        throw new AppError('validation-failed', 'wallId must be a positive integer.', { errors: [{ path: 'wallId', message: 'must be a positive integer' }] });
      }
      const em = deps.orm.em.fork();
      await assertOwnWall(em, claims.clientId, wallId);
      wss.handleUpgrade(req, socket, head, (ws) => {
        const untrack = trackHubConnection('websocket');
        const ping = setInterval(() => ws.ping(), 15_000);
        let unsubscribe: (() => Promise<void>) | null = null;
        let closed = false;
        ws.on('close', () => {
          closed = true;
          untrack();
          clearInterval(ping);
          if (unsubscribe) void unsubscribe();
        });
        followWall(em, deps.events, wallId, url.searchParams.get('lastEventId') ?? undefined, (_event, raw) => {
          if (ws.readyState === ws.OPEN) ws.send(raw);
        }).then(
          (stop) => {
            // A client that left while the replay ran: drop the subscription at once.
            if (closed) void stop();
            else unsubscribe = stop;
          },
          (err: unknown) => {
            deps.log.error({ err, wallId }, 'could not follow the wall for a WebSocket hub');
            ws.close(1011, 'could not follow the wall');
          },
        );
      });
    } catch (err) {
      refuse(socket, err instanceof AppError ? err : new AppError('internal-error', 'Could not open the event stream.'));
    }
  };
  server.on('upgrade', (req, socket, head) => void onUpgrade(req, socket, head));
  return async () => {
    for (const c of wss.clients) c.terminate();
    await new Promise<void>((r) => wss.close(() => r()));
  };
}
