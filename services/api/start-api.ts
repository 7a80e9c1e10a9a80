import type { Server } from 'node:http';
import { availableParallelism } from 'node:os';
import type { AddressInfo } from 'node:net';
import type { Runtime } from '../../shared/runtime/runtime';
import { FailureRateLimiter } from '../../shared/rate-limit/rate-limiter';
import { createCommandClient } from '../../shared/commands/command-client';
import { Admission, eventLoopDelay } from '../../shared/commands/admission';
import { openQueueInspection } from '../../shared/queue/queue-registry';
import { setOperationalSources, trackWallListeners, trackWallViewReads } from './http/metrics';
import { operationalSources } from './use-cases/operations/operational-gauges.use-case';
import type { ApiDeps } from './api-deps';
import { createApp, createCatalogApp } from './app';
import { WallEventsHub } from './events/wall-events.hub';
import { attachWebSocketEvents } from './events/websocket-events';
import { REQUEST_PATH_REDIS, createRedis } from '../../shared/redis/redis';
import { READINESS, Readiness, postgresProbe, redisReadinessProbe } from './http/readiness';
import { startHealthListener } from './http/health-listener';
import { createExpressServer } from './http/express-server';
import { partitionsHeld } from '../../shared/commands/partition-leases';
import { createLabelRenderPool } from '../../shared/labels/render-pool';
import { EmployeeAccess } from './http/employee-access';
import { WallViewCache } from './use-cases/walls/wall-view-cache';
import { EVERY_WALL_VIEW_CHANGED, wallViewChangesChannel } from '../../shared/events/channels';
import { keepSubscribed } from '../../shared/redis/subscriber';
import type { CommandClient } from '../../shared/commands/command-client';

/**
 * The process's wall view cache (use-cases/walls/wall-view-cache.ts), following the changes channel on
 * a connection of its own: the sorting workers' notices drop one wall each, another API process's write
 * every wall. It answers from memory only while that channel is subscribed. WALL_VIEW_CACHE_MS 0: none.
 */
function followWallViewChanges(runtime: Runtime): WallViewCache | undefined {
  const { config, log, redis } = runtime;
  if (config.WALL_VIEW_CACHE_MS === 0) return undefined;
  const channel = wallViewChangesChannel(config.QUEUE_PREFIX);
  // The other API processes: the write's answer waits for Redis to have handed them the message (or to
  // have failed: then they keep what they read until WALL_VIEW_CACHE_MS, as for a change no one announced).
  const cache = new WallViewCache(config.WALL_VIEW_CACHE_MS, () =>
    redis.publish(channel, EVERY_WALL_VIEW_CHANGED).then(
      () => undefined,
      (err: Error) => log.warn({ err: err.message }, 'could not tell the other API processes that the walls changed; their wall views follow within WALL_VIEW_CACHE_MS'),
    ),
  );
  const subscriber = createRedis(config.REDIS_URL, { log, name: 'wall view changes' });
  subscriber.on('message', (from: string, message: string) => {
    if (from === channel) cache.heard(message);
  });
  subscriber.on('close', () => cache.lost());
  // Redis away at the start: nothing is kept until the channel is subscribed (tried again every second).
  keepSubscribed(subscriber, () => [channel], { resumed: () => cache.subscribed(), initial: true });
  const untrack = trackWallViewReads(() => cache.reads());
  runtime.onClose('wall view changes', () => {
    untrack();
    cache.lost();
    subscriber.disconnect();
  });
  return cache;
}

/** The command client, each command's wall dropped from the wall view cache once it is answered, whatever the answer (a timeout too). */
function droppingWallOnAnswer(commands: CommandClient, cache: WallViewCache | undefined): CommandClient {
  if (!cache) return commands;
  return {
    async execute(name, data) {
      try {
        return await commands.execute(name, data);
      } finally {
        cache.commandAnswered(data.wallId);
      }
    },
    refusal: commands.refusal?.bind(commands),
    close: () => commands.close(),
  };
}

export function buildApiDeps(runtime: Runtime): ApiDeps {
  const { config, log, orm, redis } = runtime;
  // Per partition: until the workers' first answers, 10 ms per command stands in; 4 commands waiting are always admitted.
  const loop = eventLoopDelay();
  runtime.onClose('event loop delay', () => loop.stop());
  const admission = new Admission({
    maxWaitMs: config.COMMAND_MAX_WAIT_MS,
    maxInFlight: config.COMMAND_MAX_IN_FLIGHT,
    minInFlight: 4,
    initialServiceMs: 10,
    partitions: config.QUEUE_PARTITIONS,
    loopDelayMs: loop.delayMs,
  });
  const wallViews = followWallViewChanges(runtime);
  // Each command's wall is dropped from the cache once it is answered, before its caller is: a read
  // after the answer finds the change (the sorting worker's notice may come a moment after the reply).
  const commands = droppingWallOnAnswer(createCommandClient(runtime.queueSettings, log, admission), wallViews);
  runtime.onClose('command bus', () => commands.close());
  const queues = openQueueInspection(runtime.queueSettings);
  runtime.onClose('queue inspection', () => queues.close());
  const unsetSources = setOperationalSources(operationalSources(orm, queues));
  runtime.onClose('metrics sources', unsetSources);
  // A hub opening waits for its SUBSCRIBE: with Redis away it answers 503 within a second, not after retries.
  const events = new WallEventsHub(createRedis(config.REDIS_URL, { log, name: 'wall events', ...REQUEST_PATH_REDIS }), config.QUEUE_PREFIX);
  const untrack = trackWallListeners(() => events.listenerCount());
  runtime.onClose('event subscriptions', () => {
    untrack();
    events.close();
  });
  const labels = createLabelRenderPool({
    // By default one core stays for the event loop (and, on a small host, PostgreSQL).
    threads: config.LABEL_RENDER_THREADS || Math.max(1, Math.min(4, availableParallelism() - 1)),
    maxQueued: config.LABEL_RENDER_MAX_QUEUED,
    log,
  });
  runtime.onClose('label render threads', () => labels.close());
  const pgProbe = postgresProbe(config.DATABASE_URL, 'sorting:api:readiness', READINESS.timeoutMs);
  runtime.onClose('readiness connection', () => pgProbe.close());
  const redisReady = redisReadinessProbe(config.REDIS_URL, log, READINESS.timeoutMs);
  runtime.onClose('readiness Redis connection', () => redisReady.close());
  const readiness = new Readiness({ postgres: pgProbe.probe, redis: redisReady.probe }, READINESS, {
    name: 'partitions',
    probe: partitionsHeld(redis, config.QUEUE_PREFIX, config.QUEUE_PARTITIONS),
    waitMs: config.READYZ_WAITS_FOR_PARTITIONS_MS,
    recheckMs: 50,
  });
  return {
    events,
    queues,
    config,
    log,
    orm,
    rateLimiter: new FailureRateLimiter(redis, config.QUEUE_PREFIX),
    access: new EmployeeAccess(orm),
    commands,
    wallViews,
    labels,
    readiness: () => readiness.check(),
    onReadiness: (listener) => readiness.onChecks(listener),
  };
}

/**
 * Connections a client has opened but the API has not accepted yet. Node's default (511) overflows
 * when thousands of devices reconnect at once, and a connection the kernel drops costs its client a
 * SYN retransmit (1 s, then 3 s): /readyz would look slow while the API is idle. The kernel caps it at
 * net.core.somaxconn (4096 on current Linux).
 */
const LISTEN_BACKLOG = 4096;

/**
 * The HTTP server's limits on connections (docs/operations.md, "Connections"). A client gets its
 * request's headers in within 10 s and its whole body (up to 10 MB) within 60 s, or an answer 408 and
 * the connection closed: a flood of connections that never finish a request cannot hold the process's
 * sockets. An idle keep-alive connection stays open 65 s, longer than the usual load balancer's 60 s, so
 * the balancer closes it first and never sends on a connection the API is closing.
 */
function applyConnectionLimits(server: Server): void {
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 10_000;
  server.requestTimeout = 60_000;
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host, backlog: LISTEN_BACKLOG }, () => resolve((server.address() as AddressInfo).port));
  });
}

/** Starts the HTTP API (and the catalog, on its own port when CATALOG_PORT is set). */
export async function startApi(runtime: Runtime): Promise<{ port: number; deps: ApiDeps; server: Server }> {
  const deps = buildApiDeps(runtime);
  const { config, log } = runtime;
  const separateCatalog = config.CATALOG_PORT !== undefined && config.CATALOG_PORT !== config.PORT;
  const app = createApp(deps, { withCatalog: !separateCatalog });
  const server = createExpressServer(app);
  applyConnectionLimits(server);
  const port = await listen(server, config.PORT, config.HOST);
  const closeWebSockets = attachWebSocketEvents(server, deps);
  runtime.onClose('http server', async () => {
    await closeWebSockets();
    // Requests in flight may finish; event streams never end by themselves, so they get 5 s.
    const force = setTimeout(() => server.closeAllConnections(), 5000);
    await new Promise<void>((r) => {
      server.close(() => r());
      server.closeIdleConnections();
    });
    clearTimeout(force);
  });
  log.info({ port }, `API listening on http://localhost:${port}/api/v1 (docs: /api/v1/docs)`);
  if (config.HEALTH_PORT !== undefined && config.HEALTH_PORT !== config.PORT) {
    const health = await startHealthListener({ port: config.HEALTH_PORT, host: config.HOST, readiness: deps.readiness, onReadiness: deps.onReadiness, log });
    runtime.onClose('health listener', () => health.close());
    log.info({ healthPort: health.port, thread: health.thread }, `health probes on http://localhost:${health.port}/healthz and /readyz${health.thread ? ' (a thread of their own)' : ''}`);
  }
  if (separateCatalog) {
    const catalogServer = createExpressServer(createCatalogApp(deps));
    applyConnectionLimits(catalogServer);
    const catalogPort = await listen(catalogServer, config.CATALOG_PORT!, config.HOST);
    runtime.onClose('catalog server', () => new Promise<void>((r) => catalogServer.close(() => r())));
    log.info({ port: catalogPort }, `catalog listening on http://localhost:${catalogPort}/catalog`);
  }
  return { port, deps, server };
}
