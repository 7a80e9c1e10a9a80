import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { EVERY_PROCESS_NODE_FLAGS } from '../../services/supervisor/roles';

/*
 * The hubs' event WebSockets (one a wall), held by a process of their own. On a floor each hub is a
 * browser on another machine: its messages neither wait for nor delay the event loop that makes the
 * floor's load and times its answers, as the probes' requests do not (probe-process.ts).
 */

// Plain JavaScript for `node -e`: no loader to start, nothing of the bench's modules but `ws`.
const CHILD = String.raw`
const o = JSON.parse(process.env.BENCH_HUB_LISTENERS);
const WebSocket = require(o.ws);
const out = (x) => process.stdout.write(JSON.stringify(x) + '\n');
let events = 0;
const sockets = [];
Promise.all(o.wallIds.map((id) => new Promise((resolve, reject) => {
  const ws = new WebSocket('ws://' + o.host + ':' + o.port + '/api/v1/events/ws?wallId=' + id, { headers: { authorization: o.auth } });
  const timer = setTimeout(() => reject(new Error('the WebSocket of wall ' + id + ' did not open within 10 s')), 10000);
  ws.once('open', () => { clearTimeout(timer); resolve(); });
  ws.on('error', (err) => { clearTimeout(timer); reject(err); });
  ws.on('message', () => events++);
  sockets.push(ws);
}))).then(() => out({ open: true }), (err) => out({ error: err.message }));
// Each line on stdin asks for the count so far; stdin's end (the parent gone) ends the process.
require('node:readline').createInterface({ input: process.stdin }).on('line', () => out({ events }));
process.stdin.on('end', () => { for (const ws of sockets) ws.terminate(); process.exit(0); });
`;

type ChildLine = { open?: true; error?: string; events?: number };

/** One WebSocket a wall, as the hubs hold them, in a child process; counts the events they receive. */
export class HubListeners {
  private child: ChildProcess | undefined;
  private readonly waiting: ((line: ChildLine) => void)[] = [];
  private last = 0;

  /** Resolves once every wall's socket is open; rejects with the first that could not open. */
  async open(port: number, auth: string, walls: { id: number }[]): Promise<void> {
    const options = { host: '127.0.0.1', port, auth, wallIds: walls.map((w) => w.id), ws: require.resolve('ws') };
    // The token goes in the environment, which only this user can read, not in the command line.
    const child = spawn(process.execPath, [...EVERY_PROCESS_NODE_FLAGS, '-e', CHILD], { stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, BENCH_HUB_LISTENERS: JSON.stringify(options) } });
    this.child = child;
    createInterface({ input: child.stdout! }).on('line', (line) => this.waiting.shift()?.(JSON.parse(line) as ChildLine));
    // A question it can no longer answer gets no count rather than no answer.
    child.once('exit', (code) => {
      for (const resolve of this.waiting.splice(0)) resolve({ error: `the hubs' WebSocket process exited (${code})` });
      if (this.child === child) this.child = undefined;
    });
    const first = await this.next();
    if (!first.open) {
      this.close();
      throw new Error(first.error ?? 'the hubs\' WebSockets did not open');
    }
  }

  /** The events received so far, over every wall's socket (the last count known once the process is gone). */
  async events(): Promise<number> {
    if (!this.child) return this.last;
    const answer = this.next();
    this.child.stdin!.write('count\n');
    this.last = (await answer).events ?? this.last;
    return this.last;
  }

  close(): void {
    if (!this.child) return;
    this.child.stdin!.end();
    this.child = undefined;
  }

  private next(): Promise<ChildLine> {
    return new Promise((resolve) => this.waiting.push(resolve));
  }
}
