import { spawn, spawnSync } from 'node:child_process';

/*
 * What one hop between two processes costs on this machine under the condition of the moment: a byte
 * sent back and forth over a Unix socket between two child processes, one echoing, the other timing
 * `HOP_ROUND_TRIPS` round trips (its own CPU per round trip, and the round trip's wall time). Once as the
 * scheduler places them, and once with both pinned to the same core when `taskset` is there.
 *
 * A scan crosses about a dozen such hops (sorter, API, Redis, worker, PostgreSQL and back, and the
 * pipeline's to the hubs and lights), the skeleton fewer: where a hop costs much, at one sorter and on a
 * virtual machine whose cross-core wake-ups go through the hypervisor, the service pays it more often
 * than the skeleton does. The figure tells a run on such a machine from a run on another.
 */

export interface HopCost {
  /** The timing side's CPU per round trip (µs) and the round trip (µs), placed by the scheduler. */
  cpuUs: number;
  wallUs: number;
  /** The same with both processes on core 0, or null without taskset. */
  oneCore: { cpuUs: number; wallUs: number } | null;
}

const HOP_ROUND_TRIPS = 5000;
/** A probe that has not finished by then is killed and reported as not measured. */
const HOP_TIMEOUT_MS = 30_000;

// One script for both sides: `echo` answers every byte; `time` spawns its echo (argv[2] the taskset
// prefix, if any), sends one byte at a time and prints its figures as JSON.
const SCRIPT = `
const net = require('node:net');
const sock = process.env.HOP_SOCKET;
if (process.argv[1] === 'echo') {
  const s = net.connect(sock);
  s.on('data', (d) => s.write(d));
  s.on('error', () => process.exit(0));
} else {
  const n = Number(process.argv[2]);
  require('node:fs').rmSync(sock, { force: true });
  const srv = net.createServer((c) => {
    let i = 0;
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    c.on('data', () => {
      if (++i < n) return void c.write('x');
      const cpu = process.cpuUsage(cpu0);
      process.stdout.write(JSON.stringify({ cpuUs: (cpu.user + cpu.system) / n, wallUs: ((performance.now() - t0) * 1000) / n }));
      c.destroy();
      srv.close();
    });
    c.write('x');
  });
  srv.listen(sock, () => {
    const pin = process.env.HOP_PIN;
    const args = ['-e', process.env.HOP_SCRIPT, 'echo'];
    const child = require('node:child_process').spawn(pin ? 'taskset' : process.execPath, pin ? ['-c', pin, process.execPath, ...args] : args, { stdio: 'ignore', env: process.env });
    srv.on('close', () => child.kill());
  });
}
`;

function tasksetWorks(): boolean {
  return spawnSync('taskset', ['-c', '0', 'true'], { stdio: 'ignore' }).status === 0;
}

async function measure(pin: string | null): Promise<{ cpuUs: number; wallUs: number }> {
  const env: NodeJS.ProcessEnv = { ...process.env, HOP_SCRIPT: SCRIPT, HOP_SOCKET: `/tmp/bench-hop-${process.pid}.sock`, ...(pin ? { HOP_PIN: pin } : {}) };
  delete env.NODE_OPTIONS;
  const args = ['-e', SCRIPT, 'time', String(HOP_ROUND_TRIPS)];
  const child = pin ? spawn('taskset', ['-c', pin, process.execPath, ...args], { env }) : spawn(process.execPath, args, { env });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  // A side that never starts (its echo gone) would keep the other waiting: bounded.
  const timer = setTimeout(() => child.kill('SIGKILL'), HOP_TIMEOUT_MS);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve)).finally(() => clearTimeout(timer));
  if (code !== 0 || !out) throw new Error(`the hop probe failed (${code ?? `killed after ${HOP_TIMEOUT_MS} ms`}): ${err.trim().slice(0, 300)}`);
  const r = JSON.parse(out) as { cpuUs: number; wallUs: number };
  return { cpuUs: Math.round(r.cpuUs * 10) / 10, wallUs: Math.round(r.wallUs * 10) / 10 };
}

/** The hop's cost now, as placed by the scheduler and on one core. */
export async function hopCost(): Promise<HopCost> {
  const placed = await measure(null);
  return { ...placed, oneCore: tasksetWorks() ? await measure('0') : null };
}
