import { LRUCache } from 'lru-cache';
import type { Runtime } from '../../shared/runtime/runtime';
import { workerCommandClient } from '../../shared/commands/command-client';
import { eventConsumer } from '../pipeline/consumer-runner';
import type { KindStarted, WorkerKindCode } from '../pipeline/worker-kind';
import { pressButton } from './button-press.use-case';
import { ControllerRegistry } from './controllers';
import { LightsEngine } from './lights-engine';
import { wallsToSweep } from './lights.queries';
import { handleLightsEvents } from './lights-events.use-case';
import { MqttLightsDriver, type ButtonPress } from './mqtt/mqtt-driver';
import { loadTcpControllers, TcpLightsDriver } from './tcp/tcp-driver';

const RESYNC_RETRY_MS = 2_000;

/** The events that change a light. */
const LIGHT_EVENT_TYPES = [
  'sort-box-item.created', 'sort-box-item.confirmed', 'sort-box-item.cancelled', 'sort-box-item.swapped',
  'sort-box.completed', 'sort-box.released', 'wall.updated', 'command.refused', 'lights.mode',
] as const;

/** What the gateway's start gives its consumer: the engine that shows the walls through its drivers. */
type LightsContext = { lights: LightsEngine };

/**
 * Worker kind `lights`: the light gateway (docs/lights.md). A consumer of the relayed events (the
 * consumer `lights`, reading the outbox from its position) that sets the slot lights of every wall
 * through its drivers (MQTT, TCP pick-to-light) and turns the controllers' buttons into commands. Every light is set again from
 * PostgreSQL at start, at each (re)connect of the broker or of a controller, and every
 * LIGHTS_RESYNC_MS. One gateway per deployment (the supervisor runs one).
 */
export const lightsKind: WorkerKindCode<LightsContext> = {
  consumers: [
    /**
     * The consumer `lights`, one batch at a time: pictures reach the devices in the order the walls were
     * read. At least once: a batch read again shows the walls as they are now. Read at every relay
     * notification, gathering nothing: a light is due at once. Few attempts: a wall missed is set again
     * at the gateway's next full resync (LIGHTS_RESYNC_MS), and a stale light is worse than a late one.
     * Its position is saved at most every half second (positionSaveMs): an event taken again is applied
     * only after the state it follows (the wall's outbox id), so a restart that hands the last moments
     * again changes nothing, and a batch per relay step costs one round trip and one write less. In
     * the process of the active relay (npm start's pipeline process) it takes each step's events from
     * the relay in memory, with no read of PostgreSQL (workers/pipeline/relay-feed.ts).
     */
    { ...eventConsumer<LightsContext>('lights', (events, _tx, ctx) => handleLightsEvents(ctx.lights, events), LIGHT_EVENT_TYPES, 5), settings: { intervalMs: 0, positionSaveMs: 500 } },
  ],
  start: startLightGateway,
};

async function startLightGateway(runtime: Runtime): Promise<KindStarted<LightsContext>> {
  const { config, log, workerSql } = runtime;
  const engine = new LightsEngine(workerSql, log);
  // The process's one command client, closed with the runtime after this kind (workerCommandClient).
  const commands = workerCommandClient(runtime);
  const controllers = new ControllerRegistry(workerSql, log, config.LIGHTS_CONTROLLER_TIMEOUT_MS);
  await controllers.start();
  // A controller may deliver a press twice (MQTT QoS 1 after a reconnect): its id is remembered a while.
  const presses = new LRUCache<string, true>({ max: 10_000, ttl: 10 * 60_000 });
  const onButton = (press: ButtonPress) => {
    if (press.pressId !== null) {
      const key = `${press.clientId}/${press.serialNumber}/${press.pressId}`;
      if (presses.has(key)) return;
      presses.set(key, true);
    }
    const onRetry = (err: unknown, waitMs: number) =>
      log.warn({ err, press: { ...press }, waitMs }, `slot button ${press.button}: the sorting worker did not answer; sending it again`);
    pressButton({ db: workerSql, commands, engine, onRetry }, press).then(
      (outcome) => log.info({ press: { ...press }, outcome }, `slot button ${press.button}: ${outcome.kind}`),
      (err: unknown) => log.error({ err, press: { ...press } }, 'a slot button press failed'),
    );
  };

  let mqtt: MqttLightsDriver | null = null;
  let closing = false;
  let retry: NodeJS.Timeout | undefined;
  let running: Promise<void> | null = null;
  let again = false;
  // Sets every light again, then clears stale retained ones. One at a time: asked for meanwhile (a
  // reconnect during the start's resync), it runs once more after. On failure (PostgreSQL away) it
  // tries again shortly, so a reconnect is never left half done. The sweep belongs to the connection the
  // resync began on: one begun before the broker connected sweeps nothing (the connect's resync does).
  const sweep = async (session: number | null): Promise<void> => {
    if (!mqtt || session === null) return;
    await mqtt.sweepStale(session, await wallsToSweep(workerSql, {}));
  };
  const resync = (): void => {
    clearTimeout(retry);
    if (running) {
      again = true;
      return;
    }
    const session = mqtt?.session ?? null;
    running = engine
      .resyncAll()
      .then(() => sweep(session))
      .then(
        () => undefined,
        (err: unknown) => {
          if (closing) return;
          log.warn({ err }, 'could not set every light again; retrying');
          retry = setTimeout(resync, RESYNC_RETRY_MS);
          retry.unref();
        },
      )
      .finally(() => {
        running = null;
        if (again && !closing) {
          again = false;
          resync();
        }
      });
  };
  if (config.MQTT_URL !== 'off') {
    mqtt = new MqttLightsDriver({ url: config.MQTT_URL, prefix: config.MQTT_TOPIC_PREFIX, log, onConnected: resync, onButton, onController: (r) => controllers.report(r) });
    engine.addDriver(mqtt);
  }
  if (config.LIGHTS_TCP_CONTROLLERS) {
    const tcp = loadTcpControllers(config.LIGHTS_TCP_CONTROLLERS);
    engine.addDriver(new TcpLightsDriver(tcp, { log, heartbeatMs: config.LIGHTS_TCP_HEARTBEAT_MS, onButton, onController: (r) => controllers.report(r) }));
    log.info({ controllers: tcp.length }, 'pick-to-light TCP controllers configured');
  }
  const periodic = setInterval(resync, config.LIGHTS_RESYNC_MS);
  periodic.unref();
  // Registered before the consumer, so the consumer stops first (closers run last-registered first).
  runtime.onClose('light gateway', async () => {
    closing = true;
    clearInterval(periodic);
    clearTimeout(retry);
    await running;
    await engine.close();
    await controllers.close();
  });
  resync();
  return { context: { lights: engine }, onStandby: { lights: () => engine.standby() } };
}
