import { randomUUID } from 'node:crypto';
import mqtt, { type MqttClient } from 'mqtt';

/*
 * A virtual slot light controller over MQTT, as a real one behaves (docs/lights.md "MQTT"): it knows
 * only its client and the serial numbers of the slots it drives, announces them on its status topic
 * (with a last will saying offline), sends heartbeats, follows each slot's retained front and back
 * light, and presses buttons. The simulator drives one per wall; the tests use it to read the lights.
 */

/** A light as its retained message says it; null when cleared (no retained message). */
export interface ShownLight {
  on: boolean;
  colors: string[];
  rgb: string[];
  blink: string;
  digits: string;
  crc: string;
  position: number;
}

export interface VirtualControllerOptions {
  url: string;
  prefix?: string;
  clientId: number;
  controllerId: string;
  serialNumbers: string[];
  heartbeatMs?: number;
}

export class VirtualLightController {
  /** Per serial number, the front and back light as the broker holds them. */
  readonly lights = new Map<string, { wallId: number | null; front: ShownLight | null; back: ShownLight | null }>();
  private readonly client: MqttClient;
  private readonly prefix: string;
  private heartbeat: NodeJS.Timeout | undefined;
  private readonly listeners = new Set<(serial: string) => void>();
  /** Every light message received, oldest first (the tests look for flashes in it). */
  readonly history: { serialNumber: string; side: 'front' | 'back'; light: ShownLight | null; at: number }[] = [];

  private constructor(private readonly opts: VirtualControllerOptions) {
    this.prefix = opts.prefix ?? 'sorting';
    for (const s of opts.serialNumbers) this.lights.set(s, { wallId: null, front: null, back: null });
    this.client = mqtt.connect(opts.url, {
      clientId: `virtual-${opts.controllerId}-${randomUUID().slice(0, 8)}`,
      reconnectPeriod: 500,
      connectTimeout: 5000,
      will: { topic: this.statusTopic, payload: Buffer.from('{"online":false}'), qos: 1, retain: true },
    });
    this.client.on('error', () => undefined);
    this.client.on('message', (topic, payload) => this.onMessage(topic, payload));
    this.client.on('connect', () => {
      // Its slots, by serial number, on any wall of its client (a slot belongs to one wall).
      const filters = opts.serialNumbers.flatMap((s) => ['front', 'back'].map((side) => `${this.prefix}/${opts.clientId}/walls/+/slots/${encodeURIComponent(s)}/${side}`));
      this.client.subscribe(filters, { qos: 1 });
      this.client.publish(this.statusTopic, JSON.stringify({ online: true, slots: opts.serialNumbers }), { qos: 1, retain: true });
    });
    this.heartbeat = setInterval(() => {
      if (this.client.connected) this.client.publish(`${this.prefix}/${opts.clientId}/controllers/${opts.controllerId}/heartbeat`, '{}', { qos: 0 });
    }, opts.heartbeatMs ?? 5000);
    this.heartbeat.unref();
  }

  static async connect(opts: VirtualControllerOptions): Promise<VirtualLightController> {
    const c = new VirtualLightController(opts);
    await new Promise<void>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`virtual controller could not reach ${opts.url}`)), 10_000);
      c.client.once('connect', () => {
        clearTimeout(t);
        resolve();
      });
    });
    return c;
  }

  private get statusTopic(): string {
    return `${this.prefix}/${this.opts.clientId}/controllers/${this.opts.controllerId}/status`;
  }

  get connected(): boolean {
    return this.client.connected;
  }

  private onMessage(topic: string, payload: Buffer): void {
    const parts = topic.split('/');
    const side = parts.at(-1);
    const serial = decodeURIComponent(parts.at(-2) ?? '');
    const held = this.lights.get(serial);
    if (!held || (side !== 'front' && side !== 'back')) return;
    let light: ShownLight | null = null;
    try {
      light = payload.length ? (JSON.parse(payload.toString('utf8')) as ShownLight) : null;
    } catch {
      return;
    }
    held.wallId = Number(parts.at(-4));
    held[side] = light;
    this.history.push({ serialNumber: serial, side, light, at: Date.now() });
    if (this.history.length > 10_000) this.history.splice(0, 1000);
    for (const l of this.listeners) l(serial);
  }

  onChange(listener: (serialNumber: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Presses a slot's button (confirm or short) with a fresh press id; the wall is the one its light came from. */
  async press(serialNumber: string, button: 'confirm' | 'short', wallId?: number): Promise<string> {
    const wall = wallId ?? this.lights.get(serialNumber)?.wallId;
    if (!wall) throw new Error(`slot ${serialNumber} has shown no light yet: its wall is unknown`);
    const id = randomUUID();
    await this.client.publishAsync(`${this.prefix}/${this.opts.clientId}/walls/${wall}/slots/${encodeURIComponent(serialNumber)}/button`, JSON.stringify({ button, id }), { qos: 1 });
    return id;
  }

  /** Stops: `clean` says offline itself; otherwise the connection just drops and the broker sends its last will. */
  async close(opts: { clean?: boolean } = {}): Promise<void> {
    clearInterval(this.heartbeat);
    if (opts.clean !== false && this.client.connected) {
      await this.client.publishAsync(this.statusTopic, JSON.stringify({ online: false }), { qos: 1, retain: true }).catch(() => undefined);
      await this.client.endAsync();
    } else {
      (this.client as unknown as { stream?: { destroy(): void } }).stream?.destroy();
      await this.client.endAsync(true);
    }
  }
}
