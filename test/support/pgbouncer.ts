import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client as PgClient } from 'pg';
import { waitFor } from './test-api';

export function pgbouncerVersion(): string | null {
  try {
    const out = execFileSync('pgbouncer', ['--version'], { encoding: 'utf8' });
    return /PgBouncer (\S+)/.exec(out)?.[1] ?? null;
  } catch {
    return null;
  }
}

export interface LocalPgBouncer {
  port: number;
  child: ChildProcess;
  output: string;
  /** A query on the admin console (`SHOW POOLS`, `SHOW STATS`...). */
  admin<T>(command: string): Promise<T[]>;
  stop(): Promise<void>;
}

/**
 * A PgBouncer of its own on a loopback port, in front of the PostgreSQL at `pgHost:pgPort` (trust
 * auth, like the test server), in `mode` (session or transaction) with `poolSize` server connections
 * per database and user. Runs in the foreground as a child process and is stopped by the caller.
 */
export async function startPgBouncer(opts: { port: number; mode: 'session' | 'transaction'; poolSize?: number; pgHost?: string; pgPort?: number }): Promise<LocalPgBouncer> {
  const dir = mkdtempSync(path.join(tmpdir(), 'sorting-pgbouncer-'));
  const ini = path.join(dir, 'pgbouncer.ini');
  const users = path.join(dir, 'userlist.txt');
  writeFileSync(users, '"postgres" ""\n');
  writeFileSync(
    ini,
    [
      '[databases]',
      `* = host=${opts.pgHost ?? '127.0.0.1'} port=${opts.pgPort ?? 5432}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${opts.port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${users}`,
      'admin_users = postgres',
      `pool_mode = ${opts.mode}`,
      `default_pool_size = ${opts.poolSize ?? 10}`,
      'max_client_conn = 200',
      'server_reset_query = DISCARD ALL',
      'ignore_startup_parameters = extra_float_digits,options',
      'log_connections = 0',
      'log_disconnections = 0',
      '',
    ].join('\n'),
  );
  // PgBouncer refuses to run as root; it then needs a user to switch to, and to read its files.
  const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (asRoot) {
    chmodSync(dir, 0o755);
    chmodSync(ini, 0o644);
    chmodSync(users, 0o644);
  }
  const child = spawn('pgbouncer', [...(asRoot ? ['-u', 'postgres'] : []), ini], { stdio: ['ignore', 'pipe', 'pipe'] });
  let exited = false;
  const bouncer: LocalPgBouncer = {
    port: opts.port,
    child,
    output: '',
    async admin<T>(command: string) {
      const pg = new PgClient({ connectionString: `postgres://postgres@127.0.0.1:${opts.port}/pgbouncer` });
      await pg.connect();
      try {
        return (await pg.query(command)).rows as T[];
      } finally {
        await pg.end();
      }
    },
    async stop() {
      if (!exited) child.kill('SIGTERM');
      try {
        await waitFor(() => exited, { timeoutMs: 5_000, what: 'pgbouncer to exit' });
      } catch {
        child.kill('SIGKILL');
        await waitFor(() => exited, { timeoutMs: 5_000, what: 'pgbouncer to exit after SIGKILL' });
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
  const append = (b: Buffer) => {
    if (bouncer.output.length < 50_000) bouncer.output += b.toString();
  };
  child.stdout!.on('data', append);
  child.stderr!.on('data', append);
  child.once('exit', () => {
    exited = true;
  });
  try {
    await waitFor(
      async () => {
        if (exited) throw new Error(`pgbouncer exited: ${bouncer.output}`);
        await bouncer.admin('SHOW VERSION');
        return true;
      },
      { timeoutMs: 10_000, intervalMs: 50, what: `pgbouncer on port ${opts.port}` },
    );
  } catch (err) {
    await bouncer.stop().catch(() => undefined);
    throw err;
  }
  return bouncer;
}
