import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { Client, Employee } from '../../shared/db/entities';
import { initOrm } from '../../shared/db/orm';
import { verifySecret } from '../../shared/auth/password';
import { TEST_PG_BASE, dropDatabase, testRunId, withAdmin } from '../support/test-db';

const ROOT = path.resolve(__dirname, '../..');
const TSX = path.join(ROOT, 'node_modules/.bin/tsx');
const CLI = path.join(ROOT, 'services/cli/cli.ts');

// A database that does not exist yet: the cli must create and migrate it (docs/api.md §10).
// Named after the run, so another jest run's start-up does not take it for a stale database and drop it.
const dbName = `sorting_test_${testRunId()}_cli_${randomUUID().slice(0, 8)}`;
const databaseUrl = `${TEST_PG_BASE}/${dbName}`;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function cli(args: string[], env: Record<string, string | undefined> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      TSX,
      [CLI, ...args],
      { cwd: ROOT, env: { ...process.env, DATABASE_URL: databaseUrl, ...env }, timeout: 60_000 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

jest.setTimeout(90_000);

afterAll(async () => {
  await withAdmin((pg) => dropDatabase(pg, dbName));
});

describe('npm run cli -- create-client', () => {
  const args = ['create-client', '--name', 'Acme Fulfillment', '--team', 'acme', '--admin-email', 'Boss@Acme.example.com', '--admin-password', 'acme-secret-1'];

  it('creates the database, the client and its Admin, and prints exactly one JSON line', async () => {
    // Debug logging proves the logs go to stderr, not into the answer.
    const run = await cli(args, { LOG_LEVEL: 'debug' });
    expect(run.stderr).toContain('migration');
    expect(run.code).toBe(0);
    const lines = run.stdout.split('\n').filter(Boolean);
    expect(lines).toHaveLength(1);
    const answer = JSON.parse(lines[0]!);
    expect(answer).toEqual({ clientId: expect.any(Number), team: 'acme', adminEmail: 'boss@acme.example.com' });

    const orm = await initOrm(databaseUrl, 1);
    try {
      const em = orm.em.fork();
      expect(await em.findOne(Client, { id: answer.clientId })).toMatchObject({ name: 'Acme Fulfillment', team: 'acme' });
      const admin = await em.findOneOrFail(Employee, { email: 'boss@acme.example.com' });
      expect(admin).toMatchObject({ clientId: answer.clientId, roles: ['Admin'], isActive: true });
      expect(await verifySecret('acme-secret-1', admin.passwordHash)).toBe(true);
    } finally {
      await orm.close();
    }
  });

  it('refuses a taken team or e-mail with a message on stderr and exit code 1', async () => {
    const [team, email] = await Promise.all([
      cli(['create-client', '--name', 'Other', '--team', 'ACME', '--admin-email', 'x@other.example.com', '--admin-password', 'other-secret-1']),
      cli(['create-client', '--name', 'Other', '--team', 'other', '--admin-email', 'boss@acme.example.com', '--admin-password', 'other-secret-1']),
    ]);
    expect(team.code).toBe(1);
    expect(team.stdout).toBe('');
    expect(team.stderr).toMatch(/team 'ACME' exists already/);

    expect(email.code).toBe(1);
    expect(email.stdout).toBe('');
    expect(email.stderr).toMatch(/e-mail 'boss@acme.example.com' exists already/);
  });

  it('answers bad arguments with the usage and exit code 2, and --help with every command', async () => {
    // Spawning tsx takes seconds on a busy machine: run the four at once.
    const [missing, unknown, noCommand, help] = await Promise.all([
      cli(['create-client', '--name', 'X', '--team', 'bad team', '--admin-password', 'short']),
      cli(['create-client', '--nme', 'X']),
      cli(['frobnicate']),
      cli(['--help']),
    ]);
    expect(missing.code).toBe(2);
    expect(missing.stdout).toBe('');
    expect(missing.stderr).toMatch(/--team: letters, digits/);
    expect(missing.stderr).toMatch(/--admin-email: required/);
    expect(missing.stderr).toMatch(/--admin-password: must be at least 8 characters/);
    expect(missing.stderr).toContain('Usage:');

    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/Unknown option '--nme'/);

    expect(noCommand.code).toBe(2);
    expect(noCommand.stderr).toMatch(/unknown command 'frobnicate'/);

    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/create-client/);
    expect(help.stdout).toMatch(/--admin-password/);
  });
});
