import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { AppError } from '../../../shared/errors/app-error';
import type { ApiDeps } from '../api-deps';
import { bearerToken, checkToken, stillAccepted } from '../http/authenticate';
import { toAppError } from '../http/error-handler';
import { followWall, parseLastEventId } from './event-stream';
import { assertWallExists } from '../commands/wall-resolver';
import { trackHubConnection } from '../http/metrics';

export const WEBSOCKET_EVENTS_PATH = '/api/v1/events/ws';
const PING_MS = 15_000;

function refuse(socket: Duplex, err: AppError): void {
  if (socket.destroyed) return;
  const body = JSON.stringify(err.toProblem(WEBSOCKET_EVENTS_PATH));
  const headers = Object.entries(err.headers ?? {})
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  socket.end(
    `HTTP/1.1 ${err.status} ${err.code}\r\nContent-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${headers}Connection: close\r\n\r\n${body}`,
  );
}

/**
 * `GET /api/v1/events/ws?wallId=N` (docs/api.md §8): each event of the wall as one JSON text message.
 * The token comes in the Authorization header or `?access_token=`; `?lastEventId=` replays as SSE does.
 * Everything that can fail (token, wall, Redis subscription, replay) happens before the handshake,
 * so a failure is still an HTTP answer (400, 401, 404, 503), and every path releases the listener.
 */
export function attachWebSocketEvents(server: Server, deps: ApiDeps): () => Promise<void> {
  const wss = new WebSocketServer({ noServer: true });
  const onUpgrade = async (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    // Node removes its own error listener from an upgraded socket; a reset must not become an uncaught error.
    socket.on('error', () => undefined);
    // A request target URL cannot parse ('//x:99999') names no path of ours: dropped like any other, not logged as a failure.
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://localhost');
    } catch {
      return void socket.destroy();
    }
    if (url.pathname !== WEBSOCKET_EVENTS_PATH) return void socket.destroy();
    let stop: (() => Promise<void>) | undefined;
    try {
      const token = bearerToken(req.headers) ?? url.searchParams.get('access_token') ?? undefined;
      const em = deps.orm.em.fork();
      // 401s carry WWW-Authenticate here too (docs/api.md §1), as register-routes' authenticate gives them.
      if (!token) {
        throw new AppError('unauthorized', 'A bearer token is required: send it in the Authorization header or the access_token parameter.', {
          headers: { 'WWW-Authenticate': 'Bearer' },
        });
      }
      // The same check and the same actionable detail as every HTTP route (deactivated, password changed, expired).
      const check = await checkToken(token, deps);
      if (!check.ok) throw new AppError('unauthorized', check.detail, { headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' } });
      const { claims } = check;
      const rawWallId = url.searchParams.get('wallId') ?? '';
      const wallId = /^\d{1,10}$/.test(rawWallId) ? Number(rawWallId) : NaN;
      if (!Number.isInteger(wallId) || wallId < 1 || wallId > 2147483647) {
        throw new AppError('validation-failed', 'wallId must be a positive integer.', { errors: [{ path: 'wallId', message: 'must be a positive integer' }] });
      }
      const lastEventId = parseLastEventId(url.searchParams.get('lastEventId'), 'lastEventId', 'query');
      await assertWallExists(em, claims.clientId, wallId);
      const follower = await followWall(em, deps.events, claims.clientId, wallId, lastEventId);
      stop = follower.stop;
      // The one release point: the socket closes on every path (close, terminate, reset, failed handshake).
      if (socket.destroyed) return void follower.stop();
      socket.once('close', () => void follower.stop());
      wss.handleUpgrade(req, socket, head, (ws: WebSocket) => {
        ws.on('error', () => undefined);
        ws.once('close', trackHubConnection('websocket'));
        // The relay publishes a step's events together, so they arrive in one turn of the event loop:
        // the socket is corked for that turn and their frames leave in one write, not one each.
        let corked = false;
        const uncork = () => {
          corked = false;
          socket.uncork();
        };
        follower.start(
          (raw) => {
            if (ws.readyState !== ws.OPEN) return;
            if (!corked) {
              corked = true;
              socket.cork();
              process.nextTick(uncork);
            }
            ws.send(raw);
          },
          // It could not catch up after a gap in the live feed: 1012 (service restart), the client
          // reconnects with ?lastEventId= and the replay fills the gap.
          () => ws.close(1012, 'reconnect with lastEventId'),
        );
        const ping = setInterval(() => {
          if (ws.readyState !== ws.OPEN) return;
          ws.ping();
          // Access ends for streams too: a deactivated employee's socket closes at the next ping.
          void stillAccepted(token!, deps).then((ok) => {
            if (!ok && ws.readyState === ws.OPEN) ws.close(1008, 'access ended: sign in again');
          });
        }, PING_MS);
        ws.once('close', () => clearInterval(ping));
      });
    } catch (err) {
      if (stop) void stop();
      const appError = toAppError(err);
      if (appError.status >= 500) deps.log.error({ err, url: WEBSOCKET_EVENTS_PATH }, 'could not open the event WebSocket');
      refuse(socket, appError);
    }
  };
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    onUpgrade(req, socket, head).catch((err: unknown) => {
      deps.log.error({ err }, 'event WebSocket upgrade failed');
      socket.destroy();
    });
  });
  return async () => {
    for (const c of wss.clients) c.terminate();
    await new Promise<void>((r) => wss.close(() => r()));
  };
}
