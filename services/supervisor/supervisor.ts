import cluster from 'node:cluster';
import { fork, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import type { AppConfig } from '../../shared/config/config';
import type { Logger } from '../../shared/logging/logger';
import { handOverDeadHolder } from '../../shared/commands/partition-leases';
import { REQUEST_PATH_REDIS, createRedis, type Redis } from '../../shared/redis/redis';
import { roleArgs, type RoleSpec } from './roles';
import { missingServiceEnv } from './child-env';

/** Tells a child that the supervisor stops it (SIGTERM, in order), so it ignores the terminal's Ctrl-C. */
export const SUPERVISED_ENV = 'SORTING_SUPERVISED';

const ROOT = path.resolve(__dirname, '../..');
// .ts when run through the tsx loader, .js when run from the build (dist/): children run the same way.
const EXT = path.extname(__filename);
const BACKOFF_FIRST_MS = 1000;
const BACKOFF_MAX_MS = 30_000;
/** A child that ran this long before it died starts its backoff afresh. */
const HEALTHY_AFTER_MS = 60_000;

function entryFile(entry: string): string {
  return path.join(ROOT, `${entry}${EXT}`);
}

/**
 * Runs the one-shot migration (and demo seed when `seed`) as a child process. `done` rejects when it
 * fails; `stop()` ends it (a signal during start-up).
 */
export function runMigrations(log: Logger, seed: boolean): { done: Promise<void>; stop(): void } {
  const child = fork(entryFile('services/cli/migrate.cli'), seed ? ['--seed'] : [], { cwd: process.cwd(), stdio: 'inherit' });
  log.info({ pid: child.pid }, 'applying migrations');
  const done = new Promise<void>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (code === 0) return resolve();
      reject(new Error(`the migration exited with ${signal ?? `code ${code}`}`));
    });
  });
  return { done, stop: () => void child.kill('SIGTERM') };
}

interface Slot {
  spec: RoleSpec;
  index: number;
  child?: ChildProcess;
  startedAt: number;
  failures: number;
  restartTimer?: NodeJS.Timeout;
}

/**
 * Starts every role's processes, restarts one that dies with a growing delay, and on stop() ends them
 * role by role in the reverse order of ROLES.
 *
 * The supervisor never stands between a client and the API. Each process is a plain child; a single
 * API process listens on its own socket. Only when API_PROCESSES > 1 are the API processes node cluster
 * workers, to share one port, and then with SCHED_NONE: the supervisor opens the listening socket and
 * the kernel hands each connection straight to one of the API processes. Node's default round-robin
 * would make the supervisor accept every connection and pass it on over IPC, one event loop that under
 * a flood of connections held thousands of them unread for tens of seconds (docs/operations.md,
 * "Connections").
 */
export class Supervisor {
  private readonly slots: Slot[] = [];
  private stopping = false;
  private priorityRefused = false;
  /** Opened when a sorting process first dies (to hand its partitions over), closed by stop(). */
  private redis: Redis | undefined;

  constructor(
    private readonly roles: readonly RoleSpec[],
    private readonly config: AppConfig,
    private readonly log: Logger,
    private readonly graceMs: number,
  ) {}

  start(): void {
    for (const spec of this.roles) {
      const count = spec.count(this.config);
      for (let index = 0; index < count; index++) {
        const slot: Slot = { spec, index, startedAt: 0, failures: 0 };
        this.slots.push(slot);
        this.spawn(slot);
      }
      this.log.info({ child: spec.role, count }, `starting ${count} ${spec.role} process${count === 1 ? '' : 'es'}`);
    }
  }

  /** The pids by role, for tests and the bench. */
  pids(): Record<string, number[]> {
    const out: Record<string, number[]> = {};
    for (const s of this.slots) if (s.child?.pid) (out[s.spec.role] ??= []).push(s.child.pid);
    return out;
  }

  private spawn(slot: Slot): void {
    const env = { ...slot.spec.env, ...process.env, ...missingServiceEnv(process.env), [SUPERVISED_ENV]: '1' };
    const file = entryFile(slot.spec.entry);
    const args = roleArgs(slot.spec);
    // The supervisor's own flags (e.g. tsx's loader when it runs under tsx), then the role's.
    const execArgv = [...process.execArgv, ...(slot.spec.nodeFlags ?? [])];
    let child: ChildProcess;
    if (slot.spec.sharesPort && slot.spec.count(this.config) > 1) {
      // Must be set before the first cluster fork; see the class comment.
      cluster.schedulingPolicy = cluster.SCHED_NONE;
      cluster.setupPrimary({ exec: file, args, execArgv, silent: false });
      child = cluster.fork(env).process;
    } else {
      child = fork(file, args, { env, execArgv });
    }
    slot.child = child;
    slot.startedAt = Date.now();
    if (slot.spec.niceness !== undefined && child.pid) this.prioritize(slot.spec, child.pid);
    // A child that fails to start (or cannot be sent a signal) must not become an uncaught error here.
    child.on('error', (err) => this.log.error({ err, child: slot.spec.role, pid: child.pid }, `${slot.spec.role} process: ${err.message}`));
    child.once('exit', (code, signal) => {
      if (slot.child !== child) return;
      slot.child = undefined;
      // A sorting process that did not hand its partitions back (killed, crashed): handed over now.
      if (code !== 0 && slot.spec.kinds?.includes('sorting') && child.pid) void this.handOver(child.pid);
      if (this.stopping) return;
      slot.failures = Date.now() - slot.startedAt >= HEALTHY_AFTER_MS ? 1 : slot.failures + 1;
      const delayMs = Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * 2 ** (slot.failures - 1));
      this.log.error(
        { child: slot.spec.role, index: slot.index, pid: child.pid, code, signal, restartInMs: delayMs, failures: slot.failures },
        `${slot.spec.role} process ${child.pid} exited (${signal ?? `code ${code}`}); restarting in ${delayMs} ms`,
      );
      slot.restartTimer = setTimeout(() => {
        slot.restartTimer = undefined;
        if (!this.stopping) this.spawn(slot);
      }, delayMs);
    });
  }

  /**
   * The partitions of a sorting process that died, handed to the live ones at once
   * (shared/commands/partition-leases.ts, handOverDeadHolder) instead of once its leases run out
   * (SORTING_LEASE_TTL_MS). The supervisor knows for certain that its own child is gone.
   */
  private async handOver(pid: number): Promise<void> {
    const startedAt = Date.now();
    try {
      this.redis ??= createRedis(this.config.REDIS_URL, { ...REQUEST_PATH_REDIS, log: this.log, name: 'supervisor' });
      const { partitions, jobs } = await handOverDeadHolder(this.redis, { prefix: this.config.QUEUE_PREFIX, partitions: this.config.QUEUE_PARTITIONS }, { host: os.hostname(), pid });
      this.log.info({ pid, partitions, jobs, ms: Date.now() - startedAt }, `the partitions of sorting process ${pid} handed over to the live ones`);
    } catch (err) {
      this.log.warn({ pid, err: (err as Error).message }, `could not hand over the partitions of sorting process ${pid}; they free up when its leases run out`);
    }
  }

  /** A role's niceness; without the privilege (CAP_SYS_NICE) it says so once, and every process keeps the same priority. */
  private prioritize(spec: RoleSpec, pid: number): void {
    try {
      os.setPriority(pid, spec.niceness!);
    } catch (err) {
      if (this.priorityRefused) return;
      this.priorityRefused = true;
      this.log.info(
        { child: spec.role, niceness: spec.niceness, err: (err as Error).message },
        `${spec.role} processes keep the default CPU priority (raising it needs root or CAP_SYS_NICE); under CPU contention they share the cores equally with PostgreSQL's backends`,
      );
    }
  }

  /** Stops the roles in reverse start order; each gets graceMs after SIGTERM before SIGKILL. */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const slot of this.slots) if (slot.restartTimer) clearTimeout(slot.restartTimer);
    for (const spec of [...this.roles].reverse()) {
      const running = this.slots.filter((s) => s.spec === spec && s.child);
      if (!running.length) continue;
      this.log.info({ child: spec.role, pids: running.map((s) => s.child!.pid) }, `stopping ${spec.role}`);
      await Promise.all(running.map((s) => this.stopOne(s.child!)));
    }
    this.redis?.disconnect();
  }

  /** Last resort (a second signal): SIGKILL every child now. */
  killAll(): void {
    for (const s of this.slots) s.child?.kill('SIGKILL');
  }

  private async stopOne(proc: ChildProcess): Promise<void> {
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise<void>((r) => proc.once('exit', () => r()));
    proc.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((r) => (timer = setTimeout(() => r('late'), this.graceMs)));
    if ((await Promise.race([exited, late])) === 'late') {
      this.log.warn({ pid: proc.pid }, `process ${proc.pid} did not stop within ${this.graceMs} ms; killing it`);
      proc.kill('SIGKILL');
      await exited;
    }
    clearTimeout(timer);
  }
}
