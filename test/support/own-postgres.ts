import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client as PgClient } from 'pg';
import { freePort, type OwnServer } from '../../fixtures/local-servers';
import { waitFor } from './wait-for';

/**
 * A PostgreSQL server of the test's own (a throwaway cluster in a temporary directory), on a free port.
 * `url` names its `postgres` database; `kill()` is an immediate shutdown (no checkpoint, every client
 * cut off at once, as in a crash) and `start()` recovers from the WAL.
 */
export interface OwnPostgres extends Required<OwnServer> {
  /** The URL of another database of this server. */
  urlOf(database: string): string;
}

/** The newest installed server binaries (Debian: /usr/lib/postgresql/<major>/bin), or PG_BIN. */
function binDir(): string {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  const root = '/usr/lib/postgresql';
  const majors = existsSync(root) ? readdirSync(root).filter((d) => /^\d+$/.test(d)).sort((a, b) => Number(b) - Number(a)) : [];
  if (!majors.length) throw new Error('no PostgreSQL server binaries found: install them or set PG_BIN');
  return path.join(root, majors[0]!, 'bin');
}

/** PostgreSQL refuses to run as root: as root, the server runs as the `postgres` user. */
function serverUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
  return { uid, gid };
}

/**
 * initdb in a temporary directory, then the server on a free loopback port with durability off (a test
 * server, thrown away): a few seconds. Trust authentication for `postgres`, like the shared server.
 * `durable`: commits as in production (fsync, synchronous commit), for a test that crashes the server
 * (`kill`) and then counts on everything committed before (with durability off, an immediate shutdown
 * loses the last commits, whose WAL was not yet written).
 */
export async function startOwnPostgres(opts: { durable?: boolean } = {}): Promise<OwnPostgres> {
  const bin = binDir();
  const user = serverUser();
  const dir = mkdtempSync(path.join(tmpdir(), 'sorting-pg-'));
  if (user) chownSync(dir, user.uid, user.gid);
  const data = path.join(dir, 'data');
  execFileSync(path.join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync', '--no-instructions'], {
    stdio: 'ignore',
    ...(user ?? {}),
  });
  const port = await freePort();
  let child: ChildProcess | undefined;
  let exited = true;
  const urlOf = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;
  const url = urlOf('postgres');
  const start = async () => {
    exited = false;
    const server = spawn(
      path.join(bin, 'postgres'),
      [
        ...['-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=60', '-c', 'shared_buffers=16MB'],
        ...(opts.durable ? [] : ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off']),
      ],
      { stdio: 'ignore', ...(user ?? {}) },
    );
    child = server;
    server.once('exit', () => {
      exited = true;
    });
    await waitFor(
      async () => {
        if (exited) throw new Error('postgres exited at start');
        const pg = new PgClient({ connectionString: url, connectionTimeoutMillis: 1000 });
        try {
          await pg.connect();
          await pg.query('select 1');
          return true;
        } catch {
          return false;
        } finally {
          await pg.end().catch(() => undefined);
        }
      },
      { timeoutMs: 30_000, intervalMs: 100, what: `the test's own PostgreSQL on port ${port}` },
    );
  };
  // The postmaster and every backend and helper it started (their parent is the postmaster).
  const processes = (): number[] => {
    const root = child?.pid;
    if (!root) return [];
    const kids = readdirSync('/proc')
      .filter((d) => /^\d+$/.test(d))
      .filter((d) => {
        try {
          // pid (comm) state ppid ...: the comm may hold spaces, so read after its closing parenthesis.
          const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
          return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === root;
        } catch {
          return false;
        }
      })
      .map(Number);
    return [root, ...kids];
  };
  let frozen: number[] = [];
  const freeze = () => {
    if (!child || exited) return;
    frozen = processes();
    for (const pid of frozen) {
      try {
        process.kill(pid, 'SIGSTOP');
      } catch {
        // gone meanwhile
      }
    }
  };
  const thaw = () => {
    for (const pid of frozen) {
      try {
        process.kill(pid, 'SIGCONT');
      } catch {
        // gone meanwhile
      }
    }
    frozen = [];
  };
  const kill = async () => {
    if (!child || exited) return;
    thaw();
    // SIGQUIT: immediate shutdown; the server's processes end at once and every client connection breaks.
    child.kill('SIGQUIT');
    await waitFor(() => exited, { timeoutMs: 10_000, what: 'postgres to exit' }).catch(async (err) => {
      child?.kill('SIGKILL');
      throw err;
    });
  };
  await start();
  return {
    port,
    url,
    urlOf,
    kill,
    start,
    freeze,
    thaw,
    async close() {
      await kill().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
