import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import mqtt, { type IClientPublishOptions, type MqttClient } from 'mqtt';
import type { Logger } from '../../../shared/logging/logger';
import { sameLight, type Light, type SlotLights } from '../../../shared/lights/light-model';
import type { LightsDriver, WallKey } from '../lights-engine';
import { buttonMessage, controllerMessage, lightPayload, LightTopics, type ButtonKind, type Side } from './mqtt-topics';

export interface ButtonPress {
  clientId: number;
  /** The wall the controller addressed (MQTT); null when the driver knows only the serial number (TCP). */
  wallId: number | null;
  serialNumber: string;
  button: ButtonKind;
  /** The controller's id of the press, to ignore it when delivered twice; null when it sent none. */
  pressId: string | null;
  driver: 'mqtt' | 'tcp';
}

export interface ControllerReport {
  clientId: number;
  controllerId: string;
  driver: 'mqtt' | 'tcp';
  /** false: it said it is going (its last will, a clean stop). */
  online: boolean;
  /** The serial numbers it announced; undefined when this message did not say. */
  serialNumbers?: string[];
  address?: string | null;
}

export interface MqttDriverOptions {
  url: string;
  prefix: string;
  log: Logger;
  /** Connected (first time or again): every light must be set again, then `sweepStale`. */
  onConnected(): void;
  onButton(press: ButtonPress): void;
  onController(report: ControllerReport): void;
}

const RETAINED: IClientPublishOptions = { qos: 1, retain: true };
// A slice's retained lights arrive before its marker; a busy broker may take a while.
const SWEEP_TIMEOUT_MS = 30_000;
/**
 * The retained lights one subscription of the sweep may match, as far as the walls' slots tell. A broker
 * queues only so many messages for a client at once and drops the rest without a word (Mosquitto: 20 in
 * flight and `max_queued_messages` 1,000 by default), and a subscription's retained messages are all
 * queued at once: a sweep that read every light in one subscription missed lights beyond that (and
 * its marker) on any floor of more than 510 slots.
 */
const SWEEP_SLICE_LIGHTS = 500;
/** Room per wall and side for retained lights of slots no longer on it (the sweep's reason to be). */
const SWEEP_STALE_ROOM = 10;

/** A wall as the sweep reads it: its id and how many slots it has now. */
export interface SweptWall {
  id: number;
  slots: number;
}

/** The broker's address without credentials, for log lines. */
export function safeBrokerUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}`;
  } catch {
    return 'the configured broker';
  }
}

/**
 * The MQTT driver (docs/lights.md "MQTT"): each light is a retained QoS 1 message on its slot's
 * topic, so a controller that (re)connects reads the truth at once. Only changes are published while
 * connected; nothing is queued while the broker is away: on every (re)connect the cache is dropped and
 * the gateway sets every light again from PostgreSQL (the broker may have lost its retained messages),
 * then clears retained lights of slots that no longer exist (sweepStale).
 */
export class MqttLightsDriver implements LightsDriver {
  readonly name = 'mqtt';
  readonly topics: LightTopics;
  private readonly client: MqttClient;
  /** What the broker holds per wall and slot, as this connection published it. */
  private readonly published = new Map<number, { clientId: number; slots: Map<string, { slot: SlotLights; front: Light; back: Light }> }>();
  private closing = false;
  /** Counts the connections: a sweep is for the connection its resync set every light on. */
  private connection = 0;

  constructor(private readonly opts: MqttDriverOptions) {
    this.topics = new LightTopics(opts.prefix);
    const log = opts.log;
    this.client = mqtt.connect(opts.url, {
      clientId: `sorting-lights-${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`,
      clean: true,
      reconnectPeriod: 1000,
      connectTimeout: 5000,
      resubscribe: false,
      will: { topic: this.topics.gatewayStatus, payload: Buffer.from('{"online":false}'), qos: 1, retain: true },
    });
    const where = safeBrokerUrl(opts.url);
    this.client.on('connect', () => {
      log.info({ broker: where }, 'light gateway connected to the MQTT broker');
      this.connection++;
      this.published.clear();
      this.client.publish(this.topics.gatewayStatus, JSON.stringify({ online: true }), RETAINED);
      this.client.subscribe([this.topics.buttonFilter, ...this.topics.controllerFilters], { qos: 1 }, (err) => {
        if (err) log.warn({ err }, 'could not subscribe to the controllers’ topics');
      });
      opts.onConnected();
    });
    // A sweep in progress is void once the connection is gone (the broker forgot its subscriptions).
    this.client.on('close', () => this.abortSweep?.());
    this.client.on('offline', () => {
      if (!this.closing) log.warn({ broker: where }, 'MQTT broker unreachable; every light is set again when it is back');
    });
    // MQTT.js reconnects by itself (every second); an error is logged, never thrown, at most once a minute.
    let loggedAt = 0;
    this.client.on('error', (err) => {
      if (Date.now() - loggedAt < 60_000) return;
      loggedAt = Date.now();
      log.warn({ err: { message: err.message, code: (err as { code?: unknown }).code }, broker: where }, 'MQTT error');
    });
    this.client.on('message', (topic, payload, packet) => this.onMessage(topic, payload, packet.retain));
  }

  get connected(): boolean {
    return this.client.connected;
  }

  /**
   * The connection now (null: none), taken before a full resync and handed to `sweepStale`: a resync
   * begun before the connection (or an earlier one) set lights this connection did not publish, so its
   * sweep would clear live lights; the resync the connection asks for sweeps instead.
   */
  get session(): number | null {
    return this.client.connected ? this.connection : null;
  }

  private onMessage(topic: string, payload: Buffer, retained: boolean): void {
    try {
      if (this.sweep?.(topic, payload, retained)) return;
      const slot = this.topics.parseSlot(topic);
      if (slot?.kind === 'button') {
        const msg = buttonMessage.safeParse(JSON.parse(payload.toString('utf8')));
        // A retained press is not a press now (a misconfigured controller): ignored.
        if (!msg.success || retained) return;
        this.opts.onButton({ clientId: slot.clientId, wallId: slot.wallId, serialNumber: slot.serialNumber, button: msg.data.button, pressId: msg.data.id ?? null, driver: 'mqtt' });
        return;
      }
      const controller = this.topics.parseController(topic);
      if (controller) {
        // An empty retained payload clears the status: the controller is gone for good.
        const body = payload.length ? controllerMessage.safeParse(JSON.parse(payload.toString('utf8'))) : { success: true as const, data: { online: false } };
        if (!body.success) return;
        const online = controller.kind === 'heartbeat' ? true : body.data.online !== false;
        this.opts.onController({ clientId: controller.clientId, controllerId: controller.controllerId, driver: 'mqtt', online, serialNumbers: body.data.slots });
      }
    } catch (err) {
      // A controller's malformed message never stops the gateway.
      this.opts.log.debug({ err, topic }, 'ignored a malformed MQTT message');
    }
  }

  show(wall: WallKey, lights: readonly SlotLights[]): void {
    const held = this.published.get(wall.wallId);
    const next = new Map<string, { slot: SlotLights; front: Light; back: Light }>();
    for (const slot of lights) {
      const before = held?.slots.get(slot.serialNumber);
      next.set(slot.serialNumber, { slot, front: slot.front, back: slot.back });
      // A slot whose position or crc changed republishes: the payload names them.
      const moved = before && (before.slot.position !== slot.position || before.slot.crc !== slot.crc);
      if (!before || moved || !sameLight(before.front, slot.front)) this.publishLight(wall, slot, 'front', slot.front);
      if (!before || moved || !sameLight(before.back, slot.back)) this.publishLight(wall, slot, 'back', slot.back);
    }
    for (const serial of held?.slots.keys() ?? []) if (!next.has(serial)) this.clearSlot(held!.clientId, wall.wallId, serial);
    if (this.client.connected) this.published.set(wall.wallId, { clientId: wall.clientId, slots: next });
  }

  /** Some slots of a wall shown before: each published when it changed, as `show` does; the others left as they are. */
  update(wall: WallKey, lights: readonly SlotLights[]): boolean {
    const held = this.published.get(wall.wallId);
    if (!held || held.clientId !== wall.clientId) return false;
    // Not connected: nothing is published and nothing recorded (as `show`); the next connect sets every light again.
    if (!this.client.connected) return true;
    for (const slot of lights) {
      const before = held.slots.get(slot.serialNumber);
      const moved = before && (before.slot.position !== slot.position || before.slot.crc !== slot.crc);
      if (!before || moved || !sameLight(before.front, slot.front)) this.publishLight(wall, slot, 'front', slot.front);
      if (!before || moved || !sameLight(before.back, slot.back)) this.publishLight(wall, slot, 'back', slot.back);
      held.slots.set(slot.serialNumber, { slot, front: slot.front, back: slot.back });
    }
    return true;
  }

  forget(wallId: number): void {
    const held = this.published.get(wallId);
    if (!held) return;
    for (const serial of held.slots.keys()) this.clearSlot(held.clientId, wallId, serial);
    this.published.delete(wallId);
  }

  resynced(shown: ReadonlySet<number>): void {
    for (const wallId of [...this.published.keys()]) if (!shown.has(wallId)) this.forget(wallId);
  }

  private publishLight(wall: WallKey, slot: SlotLights, side: Side, light: Light): void {
    // Not connected: nothing is queued; the next connect sets every light again.
    if (!this.client.connected) return;
    this.client.publish(this.topics.slot(wall.clientId, wall.wallId, slot.serialNumber, side), lightPayload(slot, light), RETAINED);
  }

  private clearSlot(clientId: number, wallId: number, serialNumber: string): void {
    if (!this.client.connected) return;
    // An empty retained message removes the retained light: the slot is no longer on this wall.
    for (const side of ['front', 'back'] as const) this.client.publish(this.topics.slot(clientId, wallId, serialNumber, side), '', RETAINED);
  }

  private sweep: ((topic: string, payload: Buffer, retained: boolean) => boolean) | null = null;
  private abortSweep: (() => void) | null = null;

  /**
   * Clears retained lights the broker holds for slots this gateway did not publish (a slot detached or
   * moved to another wall while the gateway was down). Runs after a full resync on the same connection
   * (`session`): it reads the broker's retained lights wall by wall, a slice of walls at a time (at most
   * about SWEEP_SLICE_LIGHTS lights per subscription: a broker drops what it cannot queue), each slice
   * read up to a marker message published after its subscription, and publishes an empty retained
   * message on each stale topic. `walls` is every wall of the database (wallsToSweep).
   */
  async sweepStale(session: number | null, walls: readonly SweptWall[]): Promise<number> {
    if (session === null || session !== this.session || this.sweep) return 0;
    const marker = `${this.opts.prefix}/gateway/sweep/${randomUUID()}`;
    let found = new Set<string>();
    let waiting: { slice: string; done: () => void } | null = null;
    this.sweep = (topic, payload, retained) => {
      if (topic === marker) {
        if (waiting && payload.toString('utf8') === waiting.slice) waiting.done();
        return true;
      }
      const slot = this.topics.parseSlot(topic);
      if (!slot || slot.kind === 'button') return false;
      if (retained && payload.length) found.add(topic);
      return true;
    };
    let aborted = false;
    const abort = new Promise<void>((r) => {
      this.abortSweep = () => {
        aborted = true;
        r();
      };
    });
    let cleared = 0;
    let incomplete = 0;
    try {
      await this.client.subscribeAsync(marker, { qos: 1 });
      for (const [n, filters] of sweepSlices(this.topics, walls).entries()) {
        if (aborted || session !== this.session) return cleared;
        found = new Set();
        let timer: NodeJS.Timeout | undefined;
        let arrived = false;
        const slice = String(n);
        const read = (async () => {
          const marked = new Promise<void>((done) => (waiting = { slice, done }));
          await this.client.subscribeAsync(filters, { qos: 1 });
          await this.client.publishAsync(marker, slice, { qos: 1 });
          await marked;
          arrived = true;
        })();
        read.catch(() => undefined);
        try {
          await Promise.race([read, abort, new Promise<void>((r) => (timer = setTimeout(r, SWEEP_TIMEOUT_MS)))]);
        } finally {
          clearTimeout(timer);
          waiting = null;
        }
        // Disconnected meanwhile: nothing more is cleared now; the reconnect sets every light and sweeps again.
        if (aborted || session !== this.session) return cleared;
        await this.client.unsubscribeAsync(filters);
        // No marker: the broker dropped some (or is slow); what was read is cleared, the rest at the next sweep.
        if (!arrived) incomplete++;
        for (const topic of found) {
          if (this.isLive(topic)) continue;
          this.client.publish(topic, '', RETAINED);
          cleared++;
        }
      }
      await this.client.unsubscribeAsync(marker);
    } catch (err) {
      // The connection went while a slice was asked for: the reconnect sweeps again.
      if (!aborted && session === this.session) throw err;
    } finally {
      this.sweep = null;
      this.abortSweep = null;
      if (cleared) this.opts.log.info({ cleared }, 'cleared retained lights of slots that no longer exist');
      if (incomplete) this.opts.log.warn({ slices: incomplete, timeoutMs: SWEEP_TIMEOUT_MS }, 'the broker did not answer every slice of the sweep of stale lights in time; the next resync sweeps again');
    }
    return cleared;
  }

  /** Whether this connection published the light on this topic (a slot of the wall as it stands now). */
  private isLive(topic: string): boolean {
    const slot = this.topics.parseSlot(topic);
    if (!slot || slot.kind === 'button') return false;
    const held = this.published.get(slot.wallId);
    return !!held && held.clientId === slot.clientId && held.slots.has(slot.serialNumber) && this.topics.slot(slot.clientId, slot.wallId, slot.serialNumber, slot.kind) === topic;
  }

  /** Sends a raw message (the gateway's own status topics); dropped while disconnected. */
  publish(topic: string, payload: string, retain: boolean): void {
    if (this.client.connected) this.client.publish(topic, payload, { qos: 1, retain });
  }

  async close(): Promise<void> {
    this.closing = true;
    if (this.client.connected) await this.client.publishAsync(this.topics.gatewayStatus, JSON.stringify({ online: false }), RETAINED).catch(() => undefined);
    await this.client.endAsync();
  }
}

/**
 * The sweep's subscriptions: one filter per wall and side (`P/+/walls/<wallId>/slots/+/front`), packed
 * into slices of about SWEEP_SLICE_LIGHTS expected lights (the wall's slots and some room for stale
 * ones); a wall side larger than that is a slice of its own.
 */
export function sweepSlices(topics: LightTopics, walls: readonly SweptWall[]): string[][] {
  const slices: string[][] = [];
  let slice: string[] = [];
  let weight = 0;
  for (const wall of walls) {
    for (const side of ['front', 'back'] as const) {
      const w = wall.slots + SWEEP_STALE_ROOM;
      if (slice.length && weight + w > SWEEP_SLICE_LIGHTS) {
        slices.push(slice);
        slice = [];
        weight = 0;
      }
      slice.push(topics.wallLightFilter(wall.id, side));
      weight += w;
    }
  }
  if (slice.length) slices.push(slice);
  return slices;
}
