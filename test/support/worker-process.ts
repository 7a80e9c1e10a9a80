import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { waitFor } from './test-api';

const ROOT = path.resolve(__dirname, '../..');
const OUTPUT_LIMIT = 200_000;

export interface WorkerProcess {
  label: string;
  child: ChildProcess;
  /** stdout and stderr together, for the failure message. */
  output: string;
  /** Bytes written to stdout and stderr so far (the output above is cut at a limit, this is not). */
  bytes: number;
  exited: boolean;
}

/**
 * Starts `workers/main.ts <kind>` as its own process on this jest worker's database and Redis
 * prefix (process.env, set by worker-env.ts), logging at info so readiness can be seen.
 * `direct`: run node with the tsx loader instead of the tsx cli, so that the child is the worker
 * itself (the tsx cli runs the script in a grandchild): needed to SIGKILL it like a crash.
 */
export function spawnWorkerProcess(label: string, opts: { kind?: string; direct?: boolean; env?: Record<string, string> } = {}): WorkerProcess {
  const kind = opts.kind ?? 'sorting';
  const env = { ...process.env, LOG_LEVEL: 'info', ...opts.env };
  const child = opts.direct
    ? spawn(process.execPath, ['--import', 'tsx', 'workers/main.ts', kind], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] })
    : spawn(path.join(ROOT, 'node_modules/.bin/tsx'), ['workers/main.ts', kind], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const w: WorkerProcess = { label, child, output: '', bytes: 0, exited: false };
  const append = (chunk: Buffer) => {
    w.bytes += chunk.length;
    if (w.output.length < OUTPUT_LIMIT) w.output += chunk.toString();
  };
  child.stdout!.on('data', append);
  child.stderr!.on('data', append);
  child.once('exit', (code, signal) => {
    w.exited = true;
    w.output += `\n[${label} exited: code ${code}, signal ${signal}]\n`;
  });
  return w;
}

/** Waits (bounded) until the process logged that its command workers listen. */
export async function waitUntilReady(w: WorkerProcess, timeoutMs = 30_000): Promise<void> {
  await waitFor(
    () => {
      if (w.exited) throw new Error(`${w.label} exited before it was ready`);
      return w.output.includes('command workers started');
    },
    { timeoutMs, intervalMs: 50, what: `${w.label} to start its command workers` },
  );
}

/** Sends the signal and waits (bounded) for the exit; SIGKILL if a SIGTERM is not obeyed in time. */
export async function stopWorkerProcess(w: WorkerProcess, signal: NodeJS.Signals = 'SIGTERM', timeoutMs = 15_000): Promise<void> {
  if (w.exited) return;
  w.child.kill(signal);
  try {
    await waitFor(() => w.exited, { timeoutMs, intervalMs: 25, what: `${w.label} to exit` });
  } catch (err) {
    if (signal === 'SIGKILL') throw err;
    w.child.kill('SIGKILL');
    await waitFor(() => w.exited, { timeoutMs: 5_000, intervalMs: 25, what: `${w.label} to exit after SIGKILL` });
  }
}

/** The tail of each process's output, for a failure message. */
export function workerOutput(workers: WorkerProcess[]): string {
  return workers.map((w) => `----- ${w.label} (pid ${w.child.pid}) -----\n${w.output.slice(-20_000)}`).join('\n');
}
