import { createServer, type Server, type Socket } from 'node:net';
import type { Light } from '../../shared/lights/light-model';
import { ACK, CMD, decodeDisplay, encodeFrame, FrameReader, type Frame } from '../../shared/lights/ptl-frame';

/*
 * A simulated pick-to-light controller of the TCP family the gateway speaks (docs/lights.md "TCP
 * pick-to-light controllers"): a TCP server with a bus of nodes. It keeps what each node displays,
 * acknowledges every command, answers status requests with its nodes, and presses buttons on request.
 * The tests drive the gateway against it.
 */

export interface NodeDisplay extends Light {
  /** When the node last changed (epoch ms). */
  at: number;
}

export class SimulatedPtlController {
  /** What each node shows; a node never sent anything shows nothing (off). */
  readonly displays = new Map<number, NodeDisplay>();
  /** Commands received, oldest first (cmd, node). */
  readonly received: { cmd: number; node: number; at: number }[] = [];
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  private readonly listeners = new Set<() => void>();
  /** While true, status requests go unanswered and nothing is acknowledged (a hung controller). */
  silent = false;

  constructor(readonly nodes: readonly number[]) {}

  get port(): number {
    return (this.server?.address() as { port: number } | null)?.port ?? 0;
  }

  get connections(): number {
    return this.sockets.size;
  }

  /** Listens (port 0: any free one); again on the same port after stop(). */
  async listen(port = 0): Promise<number> {
    const server = createServer((socket) => this.accept(socket));
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    return this.port;
  }

  /** A power cut: connections dropped, every display blank, the port closed until listen() again. */
  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
    this.displays.clear();
    const server = this.server;
    this.server = null;
    if (server) await new Promise<void>((r) => server.close(() => r()));
  }

  onChange(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private accept(socket: Socket): void {
    this.sockets.add(socket);
    const reader = new FrameReader();
    socket.on('data', (chunk: Buffer) => {
      let frames: Frame[];
      try {
        frames = reader.push(chunk);
      } catch {
        socket.destroy();
        return;
      }
      for (const f of frames) this.onFrame(socket, f);
    });
    socket.on('error', () => undefined);
    socket.on('close', () => this.sockets.delete(socket));
  }

  private onFrame(socket: Socket, f: Frame): void {
    this.received.push({ cmd: f.cmd, node: f.node, at: Date.now() });
    if (this.silent) return;
    if (f.cmd === CMD.status) {
      const data = Buffer.from([this.nodes.length, ...this.nodes]);
      socket.write(encodeFrame({ seq: f.seq, cmd: CMD.status, node: 0, data }));
      return;
    }
    let result: number = ACK.done;
    if (f.cmd !== CMD.display && f.cmd !== CMD.off) result = ACK.badCommand;
    else if (!this.nodes.includes(f.node)) result = ACK.unknownNode;
    else if (f.cmd === CMD.off) this.displays.delete(f.node);
    else {
      const light = decodeDisplay(f.data);
      if (light) this.displays.set(f.node, { ...light, at: Date.now() });
      else result = ACK.badCommand;
    }
    socket.write(encodeFrame({ seq: f.seq, cmd: CMD.ack, node: f.node, data: Buffer.from([result]) }));
    for (const l of this.listeners) l();
  }

  /** What a node shows now: its light, or off. */
  shows(node: number): Light {
    const d = this.displays.get(node);
    return d ? { on: d.on, colors: d.colors, blink: d.blink, digits: d.digits } : { on: false, colors: [], blink: 'steady', digits: '' };
  }

  /** Presses a node's confirm or short button: reported to every connected host. */
  press(node: number, button: 'confirm' | 'short'): void {
    const frame = encodeFrame({ seq: 0, cmd: button === 'confirm' ? CMD.confirm : CMD.short, node, data: Buffer.alloc(0) });
    for (const s of this.sockets) s.write(frame);
  }
}
