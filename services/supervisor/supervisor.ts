import cluster, { type Worker } from 'node:cluster';
import { fork } from 'node:child_process';
import path from 'node:path';
import type { AppConfig } from '../../shared/config/config';
import type { Logger } from '../../shared/logging/logger';
import type { RoleSpec } from './roles';
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
  const child = fork(entryFile('shared/db/migrate.cli'), seed ? ['--seed'] : [], { cwd: process.cwd(), stdio: 'inherit' });
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
  worker?: Worker;
  startedAt: number;
  failures: number;
  restartTimer?: NodeJS.Timeout;
}

/**
 * Starts every role's processes (as node cluster workers, so API processes share one port), restarts
 * one that dies with a growing delay, and on stop() ends them role by role in the reverse order of ROLES.
 */
export class Supervisor {
  private readonly slots: Slot[] = [];
  private stopping = false;

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
    for (const s of this.slots) if (s.worker?.process.pid) (out[s.spec.role] ??= []).push(s.worker.process.pid);
    return out;
  }

  private spawn(slot: Slot): void {
    cluster.setupPrimary({ exec: entryFile(slot.spec.entry), args: slot.spec.args, silent: false });
    const worker = cluster.fork({ ...missingServiceEnv(process.env), [SUPERVISED_ENV]: '1' });
    slot.worker = worker;
    slot.startedAt = Date.now();
    worker.process.once('exit', (code, signal) => {
      if (slot.worker !== worker) return;
      slot.worker = undefined;
      if (this.stopping) return;
      slot.failures = Date.now() - slot.startedAt >= HEALTHY_AFTER_MS ? 1 : slot.failures + 1;
      const delayMs = Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * 2 ** (slot.failures - 1));
      this.log.error(
        { child: slot.spec.role, index: slot.index, pid: worker.process.pid, code, signal, restartInMs: delayMs, failures: slot.failures },
        `${slot.spec.role} process ${worker.process.pid} exited (${signal ?? `code ${code}`}); restarting in ${delayMs} ms`,
      );
      slot.restartTimer = setTimeout(() => {
        slot.restartTimer = undefined;
        if (!this.stopping) this.spawn(slot);
      }, delayMs);
    });
  }

  /** Stops the roles in reverse start order; each gets graceMs after SIGTERM before SIGKILL. */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const slot of this.slots) if (slot.restartTimer) clearTimeout(slot.restartTimer);
    for (const spec of [...this.roles].reverse()) {
      const running = this.slots.filter((s) => s.spec === spec && s.worker);
      if (!running.length) continue;
      this.log.info({ child: spec.role, pids: running.map((s) => s.worker!.process.pid) }, `stopping ${spec.role}`);
      await Promise.all(running.map((s) => this.stopOne(s.worker!)));
    }
  }

  /** Last resort (a second signal): SIGKILL every child now. */
  killAll(): void {
    for (const s of this.slots) s.worker?.process.kill('SIGKILL');
  }

  private async stopOne(worker: Worker): Promise<void> {
    const proc = worker.process;
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
