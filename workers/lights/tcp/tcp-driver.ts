import { readFileSync } from 'node:fs';
import { Socket } from 'node:net';
import { z } from 'zod';
import type { Logger } from '../../../shared/logging/logger';
import { OFF, sameLight, type Light, type SlotLights } from '../../../shared/lights/light-model';
import type { LightsDriver, WallKey } from '../lights-engine';
import type { ButtonPress, ControllerReport } from '../mqtt/mqtt-driver';
import { CMD, encodeFrame, FrameReader, lightFrame, type Frame } from '../../../shared/lights/ptl-frame';

/**
 * LIGHTS_TCP_CONTROLLERS names a JSON file (docs/lights.md "Mapping"): each controller's address, the
 * client it belongs to, and which node drives which slot's front or back light, by the slot's serial
 * number (its hardware id).
 */
export const tcpControllersFile = z
  .object({
    controllers: z
      .array(
        z
          .object({
            id: z.string().regex(/^[^/+#\s]{1,100}$/, 'one word of up to 100 characters, no / + #'),
            clientId: z.number().int().positive(),
            host: z.string().min(1),
            port: z.number().int().min(1).max(65535),
            nodes: z
              .array(
                z.object({
                  node: z.number().int().min(1).max(250),
                  serialNumber: z.string().min(1).max(128),
                  side: z.enum(['front', 'back']).default('front'),
                }),
              )
              .min(1),
          })
          .refine((c) => new Set(c.nodes.map((n) => n.node)).size === c.nodes.length, 'a node address is listed twice')
          .refine((c) => new Set(c.nodes.map((n) => `${n.serialNumber}/${n.side}`)).size === c.nodes.length, 'a slot side is listed twice'),
      )
      .refine((cs) => new Set(cs.map((c) => `${c.clientId}/${c.id}`)).size === cs.length, 'a controller id is listed twice'),
  })
  .strict();
export type TcpControllerConfig = z.infer<typeof tcpControllersFile>['controllers'][number];

export function loadTcpControllers(path: string): TcpControllerConfig[] {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new Error(`LIGHTS_TCP_CONTROLLERS: cannot read ${path}: ${(err as Error).message}`);
  }
  const parsed = tcpControllersFile.safeParse(raw);
  if (!parsed.success) {
    throw new Error(`LIGHTS_TCP_CONTROLLERS (${path}):\n${parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`).join('\n')}`);
  }
  return parsed.data.controllers;
}

export interface TcpDriverOptions {
  log: Logger;
  heartbeatMs: number;
  onButton(press: ButtonPress): void;
  onController(report: ControllerReport): void;
}

const RECONNECT_MIN_MS = 500;
const RECONNECT_MAX_MS = 10_000;

/** One controller's connection: nodes' lights sent when they change, all of them again on each connect. */
class ControllerLink {
  private socket: Socket | null = null;
  private readonly sent = new Map<number, Light>();
  private seq = 0;
  private lastHeard = 0;
  private online = false;
  private retry = 0;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly nodeOf = new Map<string, number>();
  private readonly slotOfNode = new Map<number, { serialNumber: string; side: 'front' | 'back' }>();

  constructor(
    readonly config: TcpControllerConfig,
    private readonly desired: (serialNumber: string, side: 'front' | 'back') => Light,
    private readonly opts: TcpDriverOptions,
  ) {
    for (const n of config.nodes) {
      this.nodeOf.set(`${n.serialNumber}/${n.side}`, n.node);
      this.slotOfNode.set(n.node, { serialNumber: n.serialNumber, side: n.side });
    }
    this.connect();
  }

  get serialNumbers(): string[] {
    return [...new Set(this.config.nodes.map((n) => n.serialNumber))];
  }

  private report(online: boolean): void {
    if (this.online === online) return;
    this.online = online;
    const { id, clientId, host, port } = this.config;
    this.opts.onController({ clientId, controllerId: id, driver: 'tcp', online, serialNumbers: this.serialNumbers, address: `${host}:${port}` });
  }

  private connect(): void {
    if (this.stopped) return;
    const socket = new Socket();
    this.socket = socket;
    const reader = new FrameReader();
    socket.setNoDelay(true);
    socket.on('connect', () => {
      this.retry = 0;
      this.lastHeard = Date.now();
      this.sent.clear();
      this.report(true);
      this.opts.log.info({ controller: this.config.id, address: `${this.config.host}:${this.config.port}` }, 'pick-to-light controller connected');
      this.send(encodeFrame({ seq: this.nextSeq(), cmd: CMD.status, node: 0, data: Buffer.alloc(0) }));
      // Every node shows the truth again: the controller may have restarted with its displays blank.
      for (const n of this.config.nodes) this.sync(n.node, this.desired(n.serialNumber, n.side));
      this.heartbeat = setInterval(() => this.beat(), this.opts.heartbeatMs);
    });
    socket.on('data', (chunk: Buffer) => {
      this.lastHeard = Date.now();
      try {
        for (const frame of reader.push(chunk)) this.onFrame(frame);
      } catch (err) {
        this.opts.log.warn({ err, controller: this.config.id }, 'pick-to-light stream out of step; reconnecting');
        socket.destroy();
      }
    });
    socket.on('error', (err) => this.opts.log.debug({ err: { message: err.message }, controller: this.config.id }, 'pick-to-light connection error'));
    socket.on('close', () => {
      clearInterval(this.heartbeat);
      if (this.socket === socket) this.socket = null;
      this.report(false);
      if (this.stopped) return;
      const wait = Math.min(RECONNECT_MAX_MS, RECONNECT_MIN_MS * 2 ** this.retry++);
      this.reconnectTimer = setTimeout(() => this.connect(), wait);
      this.reconnectTimer.unref();
    });
    socket.connect(this.config.port, this.config.host);
  }

  /** The heartbeat: a status request; a controller silent for three of them is offline (dropped, then reconnected). */
  private beat(): void {
    if (Date.now() - this.lastHeard > 3 * this.opts.heartbeatMs) {
      this.opts.log.warn({ controller: this.config.id }, 'pick-to-light controller stopped answering; reconnecting');
      this.socket?.destroy();
      return;
    }
    this.send(encodeFrame({ seq: this.nextSeq(), cmd: CMD.status, node: 0, data: Buffer.alloc(0) }));
  }

  private onFrame(frame: Frame): void {
    if (frame.cmd !== CMD.confirm && frame.cmd !== CMD.short) return;
    const slot = this.slotOfNode.get(frame.node);
    if (!slot) return void this.opts.log.warn({ controller: this.config.id, node: frame.node }, 'a button of a node no slot is mapped to');
    // The shipper side has no button of its own in this service: its cue goes off with the B- scan.
    if (slot.side !== 'front') return;
    this.opts.onButton({
      clientId: this.config.clientId,
      wallId: null,
      serialNumber: slot.serialNumber,
      button: frame.cmd === CMD.confirm ? 'confirm' : 'short',
      pressId: null,
      driver: 'tcp',
    });
  }

  private nextSeq(): number {
    this.seq = (this.seq + 1) & 0xff;
    return this.seq;
  }

  private send(frame: Buffer): void {
    if (this.socket && !this.socket.destroyed && this.socket.readyState === 'open') this.socket.write(frame);
  }

  private sync(node: number, light: Light): void {
    const before = this.sent.get(node);
    if (before && sameLight(before, light)) return;
    if (!this.socket || this.socket.readyState !== 'open') return;
    this.send(lightFrame(this.nextSeq(), node, light));
    this.sent.set(node, light);
  }

  /** A slot side's light changed (or may have): sent if this controller drives it. */
  update(serialNumber: string, side: 'front' | 'back', light: Light): void {
    const node = this.nodeOf.get(`${serialNumber}/${side}`);
    if (node !== undefined) this.sync(node, light);
  }

  drives(serialNumber: string): boolean {
    return this.nodeOf.has(`${serialNumber}/front`) || this.nodeOf.has(`${serialNumber}/back`);
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.reconnectTimer);
    clearInterval(this.heartbeat);
    this.socket?.destroy();
  }
}

/**
 * The TCP driver: one connection per configured controller. It keeps the wanted light of every slot
 * side it drives, so a controller that (re)connects gets all its nodes at once, and sends a node only
 * what changed while connected.
 */
export class TcpLightsDriver implements LightsDriver {
  readonly name = 'tcp';
  private readonly links: ControllerLink[];
  /** The wanted light per client, serial number and side; absent: off. */
  private readonly wanted = new Map<string, Light>();
  /** Per wall, the serial numbers last shown on it (to turn off the slots that leave). */
  private readonly shownOn = new Map<number, { clientId: number; serials: Set<string> }>();
  /** The wall each slot was last shown on: a slot that moved to another wall is not darkened by its old one. */
  private readonly owner = new Map<string, number>();

  constructor(controllers: TcpControllerConfig[], opts: TcpDriverOptions) {
    this.links = controllers.map((c) => new ControllerLink(c, (serial, side) => this.wanted.get(`${c.clientId}/${serial}/${side}`) ?? OFF, opts));
  }

  private set(clientId: number, serialNumber: string, side: 'front' | 'back', light: Light): void {
    const key = `${clientId}/${serialNumber}/${side}`;
    if (light.on) this.wanted.set(key, light);
    else this.wanted.delete(key);
    for (const link of this.links) if (link.config.clientId === clientId) link.update(serialNumber, side, light);
  }

  show(wall: WallKey, lights: readonly SlotLights[]): void {
    const serials = new Set<string>();
    for (const slot of lights) {
      if (!this.links.some((l) => l.config.clientId === wall.clientId && l.drives(slot.serialNumber))) continue;
      serials.add(slot.serialNumber);
      this.owner.set(`${wall.clientId}/${slot.serialNumber}`, wall.wallId);
      this.set(wall.clientId, slot.serialNumber, 'front', slot.front);
      this.set(wall.clientId, slot.serialNumber, 'back', slot.back);
    }
    const before = this.shownOn.get(wall.wallId);
    for (const serial of before?.serials ?? []) if (!serials.has(serial)) this.darken(before!.clientId, serial, wall.wallId);
    this.shownOn.set(wall.wallId, { clientId: wall.clientId, serials });
  }

  /** Some slots of a wall shown before, as `show` sets them; the wall's other slots keep their lights. */
  update(wall: WallKey, lights: readonly SlotLights[]): boolean {
    const shown = this.shownOn.get(wall.wallId);
    if (!shown || shown.clientId !== wall.clientId) return false;
    for (const slot of lights) {
      if (!this.links.some((l) => l.config.clientId === wall.clientId && l.drives(slot.serialNumber))) continue;
      shown.serials.add(slot.serialNumber);
      this.owner.set(`${wall.clientId}/${slot.serialNumber}`, wall.wallId);
      this.set(wall.clientId, slot.serialNumber, 'front', slot.front);
      this.set(wall.clientId, slot.serialNumber, 'back', slot.back);
    }
    return true;
  }

  private darken(clientId: number, serialNumber: string, wallId: number): void {
    const key = `${clientId}/${serialNumber}`;
    if (this.owner.get(key) !== wallId) return;
    this.owner.delete(key);
    this.set(clientId, serialNumber, 'front', OFF);
    this.set(clientId, serialNumber, 'back', OFF);
  }

  forget(wallId: number): void {
    const before = this.shownOn.get(wallId);
    for (const serial of before?.serials ?? []) this.darken(before!.clientId, serial, wallId);
    this.shownOn.delete(wallId);
  }

  resynced(shown: ReadonlySet<number>): void {
    for (const wallId of [...this.shownOn.keys()]) if (!shown.has(wallId)) this.forget(wallId);
  }

  async close(): Promise<void> {
    for (const link of this.links) link.stop();
  }
}
