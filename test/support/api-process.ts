import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import { waitFor } from './test-api';

const ROOT = path.resolve(__dirname, '../..');
const OUTPUT_LIMIT = 200_000;

export interface ApiProcess {
  child: ChildProcess;
  /** stdout and stderr together. */
  output: string;
  /** Bytes written to stdout and stderr so far (the output above is cut at a limit, this is not). */
  bytes: number;
  exited: boolean;
  exitCode: number | null;
  port: number;
}

/** A loopback port nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const { port } = srv.address() as AddressInfo;
  await new Promise((r) => srv.close(r));
  return port;
}

/**
 * Starts `services/api/main.ts` (the API process role, with its process policy) on an ephemeral port,
 * on this jest worker's database and Redis prefix unless `env` says otherwise; resolves once it listens.
 */
export async function spawnApiProcess(env: Record<string, string> = {}, timeoutMs = 90_000): Promise<ApiProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'services/api/main.ts'], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'info', PORT: '0', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const p: ApiProcess = { child, output: '', bytes: 0, exited: false, exitCode: null, port: 0 };
  const append = (chunk: Buffer) => {
    p.bytes += chunk.length;
    if (p.output.length < OUTPUT_LIMIT) p.output += chunk.toString();
  };
  child.stdout!.on('data', append);
  child.stderr!.on('data', append);
  child.once('exit', (code) => {
    p.exited = true;
    p.exitCode = code;
  });
  await waitFor(
    () => {
      if (p.exited) throw new Error(`the API process exited before listening:\n${p.output}`);
      const line = p.output.split('\n').find((l) => l.includes('API listening'));
      if (!line) return false;
      p.port = (JSON.parse(line) as { port: number }).port;
      return true;
    },
    { timeoutMs, intervalMs: 50, what: 'the API process to listen' },
  );
  return p;
}

/** SIGTERM, then SIGKILL if it does not exit in time; bounded. */
export async function stopApiProcess(p: ApiProcess, timeoutMs = 10_000): Promise<void> {
  if (p.exited) return;
  p.child.kill('SIGTERM');
  try {
    await waitFor(() => p.exited, { timeoutMs, intervalMs: 25, what: 'the API process to exit' });
  } catch {
    p.child.kill('SIGKILL');
    await waitFor(() => p.exited, { timeoutMs: 5_000, intervalMs: 25, what: 'the API process to exit after SIGKILL' });
  }
}

/** The process's JSON log records (lines that are not JSON are returned as { raw }). */
export function logRecords(p: Pick<ApiProcess, 'output'>): Record<string, unknown>[] {
  return p.output
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => {
      try {
        return JSON.parse(l) as Record<string, unknown>;
      } catch {
        return { raw: l };
      }
    });
}
