import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';

export interface ServiceCommand {
  /** The executable: node_modules/.bin/tsx, or node for a built service. */
  command: string;
  /** Node flags, then the script and its arguments. */
  args: string[];
  /** True for tsx, which runs the script in a child node process of its own. */
  wrapped: boolean;
}

/**
 * One service process. Under tsx the script runs in a child node process of the tsx wrapper, so
 * `nodePid` (the process that serves) differs from the wrapper's pid; memory and CPU are read from it.
 *
 * Its stdout and stderr go straight to its log file, not through a pipe to the bench: a pipe that the
 * bench, busy generating load, drains late fills up, and a service logging synchronously (pino) then
 * stalls on its writes, which the figures would blame on the service.
 */
export class ServiceProcess {
  readonly proc: ChildProcess;
  readonly exited: Promise<number | null>;
  private exitCode: number | null | undefined;

  constructor(
    readonly name: string,
    root: string,
    private readonly cmd: ServiceCommand,
    env: NodeJS.ProcessEnv,
    private readonly logFile: string,
  ) {
    const fd = openSync(logFile, 'w');
    try {
      this.proc = spawn(cmd.command, cmd.args, { cwd: root, env, stdio: ['ignore', fd, fd] });
    } finally {
      closeSync(fd);
    }
    this.exited = new Promise((resolve) => {
      this.proc.once('exit', (code, signal) => {
        this.exitCode = code ?? (signal ? -1 : null);
        resolve(this.exitCode);
      });
    });
  }

  get running(): boolean {
    return this.exitCode === undefined;
  }

  private logText(): string {
    try {
      return readFileSync(this.logFile, 'utf8');
    } catch {
      return '';
    }
  }

  /** Lines the process has written so far. */
  get lines(): number {
    return this.logText().split('\n').filter((l) => l.trim()).length;
  }

  lastLines(n = 30): string {
    return this.logText().split('\n').filter((l) => l.trim()).slice(-n).join('\n');
  }

  /** The node process that serves: the process itself, or under tsx its only child (undefined until it exists). */
  nodePid(): number | undefined {
    const pid = this.proc.pid;
    if (!pid || !this.cmd.wrapped) return pid;
    try {
      const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
      return children[0];
    } catch {
      return undefined;
    }
  }

  /** The tsx wrapper's pid, if any. */
  wrapperPid(): number | undefined {
    return this.cmd.wrapped && this.running ? this.proc.pid : undefined;
  }

  /** SIGTERM (tsx relays it; the service shuts down in order), then SIGKILL both after graceMs. */
  async stop(graceMs = 10_000): Promise<void> {
    if (!this.running) return;
    const child = this.nodePid();
    this.proc.kill('SIGTERM');
    const timer = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), graceMs).unref());
    if ((await Promise.race([this.exited, timer])) === 'timeout') {
      console.log(`  [${this.name}] did not stop within ${graceMs} ms; killing it`);
      this.killNow(child);
      await this.exited;
    }
  }

  /** Last resort, synchronous (process 'exit' handler): no orphan may keep the port or the queues. */
  killNow(child = this.nodePid()): void {
    for (const pid of [child, this.running ? this.proc.pid : undefined]) {
      if (!pid) continue;
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
  }
}

/** Resident memory of a process in bytes (VmRSS), or undefined when it is gone. */
export function residentBytes(pid: number | undefined): number | undefined {
  if (!pid) return undefined;
  try {
    const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Samples the RSS of some processes at an interval and keeps the peak and the last value. */
export class RssSampler {
  private timer: NodeJS.Timeout | undefined;
  readonly peak = new Map<string, number>();
  /** Peak since the last resetStep(). */
  readonly stepPeak = new Map<string, number>();
  readonly last = new Map<string, number>();

  constructor(private readonly targets: () => { name: string; pid: number | undefined }[]) {}

  start(intervalMs = 200): void {
    this.sample();
    this.timer = setInterval(() => this.sample(), intervalMs);
  }

  sample(): void {
    for (const { name, pid } of this.targets()) {
      const rss = residentBytes(pid);
      if (rss === undefined) continue;
      this.last.set(name, rss);
      if (rss > (this.peak.get(name) ?? 0)) this.peak.set(name, rss);
      if (rss > (this.stepPeak.get(name) ?? 0)) this.stepPeak.set(name, rss);
    }
  }

  resetStep(): void {
    this.stepPeak.clear();
    this.sample();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.sample();
  }
}

/** Bounded poll (no bare sleep): resolves when check() is truthy, fails after timeoutMs or when abort() says why. */
export async function pollUntil<T>(
  what: string,
  check: () => Promise<T | undefined | null | false>,
  opts: { timeoutMs: number; intervalMs?: number; abort?: () => string | undefined },
): Promise<T> {
  const deadline = Date.now() + opts.timeoutMs;
  let lastError: unknown;
  for (;;) {
    const why = opts.abort?.();
    if (why) throw new Error(`${what}: ${why}`);
    try {
      const v = await check();
      if (v) return v;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${opts.timeoutMs} ms waiting for ${what}${lastError ? ` (${String(lastError)})` : ''}`);
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 200));
  }
}

/**
 * tsc -p tsconfig.build.json into <resultsDir>/dist, as `npm start` builds; type errors in files others are
 * editing do not stop the emit. Returns a warning when tsc reported errors (built anyway).
 */
export function buildServices(root: string, resultsDir: string): string | undefined {
  const outDir = path.join(resultsDir, 'dist');
  rmSync(outDir, { recursive: true, force: true });
  const run = spawnSync(path.join(root, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.build.json', '--outDir', outDir, '--tsBuildInfoFile', path.join(outDir, '.tsbuildinfo')], { cwd: root, encoding: 'utf8' });
  for (const script of ['services/main.js', 'services/api/main.js', 'workers/main.js']) {
    if (!existsSync(path.join(outDir, script))) throw new Error(`the build produced no ${script}:\n${run.stdout}${run.stderr}`);
  }
  return run.status !== 0 ? `tsc reported errors (built anyway):\n${run.stdout.split('\n').slice(0, 5).join('\n')}` : undefined;
}
