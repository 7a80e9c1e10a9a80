import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import os from 'node:os';

/*
 * The busy condition of `npm run bench` (docs/benchmarks.md): a child process that spins, pinned to one
 * core when `taskset` is there, so the service, the skeleton and the floor are measured with one core of
 * the machine taken, as on a warehouse server that also runs backups, the OMS or a second service.
 */

export interface CpuHog {
  pid: number;
  /** The core it is pinned to, or null (no taskset: it spins wherever the scheduler puts it). */
  core: number | null;
  stop(): void;
}

function hasTaskset(): boolean {
  const r = spawnSync('taskset', ['-c', '0', 'true'], { stdio: 'ignore' });
  return r.status === 0;
}

/** Starts the spinning child (the last core when it can be pinned); stop() or the bench's exit ends it. */
export function startCpuHog(): CpuHog {
  const spin = [process.execPath, '-e', 'for (;;) {}'];
  const core = hasTaskset() ? os.cpus().length - 1 : null;
  const child: ChildProcess = core === null ? spawn(spin[0]!, spin.slice(1), { stdio: 'ignore' }) : spawn('taskset', ['-c', String(core), ...spin], { stdio: 'ignore' });
  const stop = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  process.once('exit', stop);
  return { pid: child.pid!, core, stop };
}
