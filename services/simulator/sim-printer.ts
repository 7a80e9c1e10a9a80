import { createServer, type Server, type Socket } from 'node:net';

/** One label as a simulated printer received it: every byte of one connection. */
export interface ReceivedLabel {
  at: Date;
  bytes: Buffer;
  /** The plate number printed (the field data of the label's ^BC barcode), when one is found. */
  plateNumber: string | null;
}

/**
 * A network label printer as the service sees one: a raw TCP port that takes ZPL and answers nothing.
 * It records what each connection sent, and can go away (`stop`: the port refuses connections) and come
 * back on the same port (`start` again), as a printer switched off and on does. For `npm run simulate`
 * and the tests.
 */
export class SimulatedPrinter {
  readonly labels: ReceivedLabel[] = [];
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  private listeners: ((label: ReceivedLabel) => void)[] = [];
  port = 0;

  constructor(private readonly host = '127.0.0.1') {}

  /** Listens on `port` (0: a free one the first time, the same one after a stop). */
  async start(port = this.port): Promise<number> {
    if (this.server) return this.port;
    const server = createServer((socket) => {
      this.sockets.add(socket);
      const chunks: Buffer[] = [];
      socket.on('data', (c: Buffer) => chunks.push(c));
      socket.on('error', () => undefined);
      socket.on('close', () => {
        this.sockets.delete(socket);
        if (chunks.length === 0) return;
        const bytes = Buffer.concat(chunks);
        const label = { at: new Date(), bytes, plateNumber: /\^BC[^^]*\^FH\^FD([^^]+)\^FS/.exec(bytes.toString('utf8'))?.[1] ?? null };
        this.labels.push(label);
        for (const l of this.listeners) l(label);
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, this.host, () => resolve());
    });
    this.server = server;
    this.port = (server.address() as { port: number }).port;
    return this.port;
  }

  /** Goes away: stops listening and drops the connections it has. */
  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = null;
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  get running(): boolean {
    return this.server !== null;
  }

  /** Called with each label received from now on. */
  onLabel(listener: (label: ReceivedLabel) => void): void {
    this.listeners.push(listener);
  }
}
