import { LRUCache } from 'lru-cache';
import type { Runtime } from '../../shared/runtime/runtime';
import { createCommandClient } from '../../shared/commands/command-client';
import { consumerSettings, startEventConsumer } from '../pipeline/consumer-runner';
import { EVENT_CONSUMERS, settingsOf } from '../pipeline/consumers';
import { pressButton } from './button-press.use-case';
import { ControllerRegistry } from './controllers';
import { LightsEngine } from './lights-engine';
import { MqttLightsDriver, type ButtonPress } from './mqtt/mqtt-driver';
import { loadTcpControllers, TcpLightsDriver } from './tcp/tcp-driver';

const RESYNC_RETRY_MS = 2_000;

/**
 * Worker kind `lights`: the light gateway (docs/lights.md). A consumer of the relayed events (the
 * consumer `lights`, reading the outbox from its position) that sets the slot lights of every wall
 * through its drivers (MQTT, TCP pick-to-light) and turns the controllers' buttons into commands. Every light is set again from
 * PostgreSQL at start, at each (re)connect of the broker or of a controller, and every
 * LIGHTS_RESYNC_MS. One gateway per deployment (the supervisor runs one).
 */
export async function startLightsWorker(runtime: Runtime): Promise<void> {
  const { config, log, ormSql } = runtime;
  const engine = new LightsEngine(ormSql, log);
  const commands = createCommandClient(runtime.queueSettings, log);
  const controllers = new ControllerRegistry(ormSql, log, config.LIGHTS_CONTROLLER_TIMEOUT_MS);
  await controllers.start();
  // A controller may deliver a press twice (MQTT QoS 1 after a reconnect): its id is remembered a while.
  const presses = new LRUCache<string, true>({ max: 10_000, ttl: 10 * 60_000 });
  const onButton = (press: ButtonPress) => {
    if (press.pressId !== null) {
      const key = `${press.clientId}/${press.serialNumber}/${press.pressId}`;
      if (presses.has(key)) return;
      presses.set(key, true);
    }
    pressButton({ db: ormSql, commands, engine }, press).then(
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
  // tries again shortly, so a reconnect is never left half done.
  const resync = (): void => {
    clearTimeout(retry);
    if (running) {
      again = true;
      return;
    }
    running = engine
      .resyncAll()
      .then(() => mqtt?.sweepStale())
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
    await commands.close();
  });
  resync();
  // The consumer `lights` (workers/pipeline/consumers.ts), one batch at a time: pictures reach the devices
  // in the order the walls were read. At least once: a batch read again shows the walls as they are now.
  const lights = EVENT_CONSUMERS.lights;
  await startEventConsumer(runtime, lights, { name: 'light gateway', settings: settingsOf(lights, consumerSettings(config)), context: { lights: engine }, onStandby: () => engine.standby() });
}
