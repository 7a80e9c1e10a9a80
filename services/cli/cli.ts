import { parseArgs, type ParseArgsConfig } from 'node:util';
import pino from 'pino';
import { z } from 'zod';
import { loadConfig, type AppConfig } from '../../shared/config/config';
import { AppError } from '../../shared/errors/app-error';
import { createLogger } from '../../shared/logging/logger';
import { createRuntime, type Runtime } from '../../shared/runtime/runtime';
import { createClient } from '../../shared/tenancy/create-client.use-case';
import { rebuildStats } from '../../shared/statistics/rebuild-stats.use-case';
import { progressBar } from './progress-bar';

/**
 * `npm run cli -- <command> [options]`: operator commands (docs/api.md §2 and §10).
 * stdout carries only the command's answer (one JSON line) so scripts can parse it; logs and
 * errors go to stderr. Exit codes: 0 done, 1 refused or failed, 2 bad command line.
 */

type Options = NonNullable<ParseArgsConfig['options']>;

interface Command<T> {
  name: string;
  summary: string;
  /** One line per option, already aligned, for the usage text. */
  optionHelp: string[];
  options: Options;
  schema: z.ZodType<T>;
  run(input: T, runtime: Runtime): Promise<unknown>;
}

// A team is the client's sub-domain in app links (APP_URL_* settings substitute {team}).
const team = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/, 'letters, digits and inner hyphens only, at most 63 characters');

const createClientCommand: Command<{
  name: string;
  team: string;
  'admin-email': string;
  'admin-password': string;
  'admin-first-name'?: string;
  'admin-last-name'?: string;
}> = {
  name: 'create-client',
  summary: 'Creates a client (tenant) and its first Admin; prints {"clientId","team","adminEmail"}.',
  optionHelp: [
    '--name <name>               the company name, e.g. "Acme Fulfillment"',
    '--team <team>               short unique handle (letters, digits, hyphens), e.g. acme',
    '--admin-email <email>       the first Admin\'s e-mail: the user name for POST /token',
    '--admin-password <password> the first Admin\'s password (8 to 72 bytes)',
    '--admin-first-name <name>   optional, default "Admin"',
    '--admin-last-name <name>    optional, default the team',
  ],
  options: {
    name: { type: 'string' },
    team: { type: 'string' },
    'admin-email': { type: 'string' },
    'admin-password': { type: 'string' },
    'admin-first-name': { type: 'string' },
    'admin-last-name': { type: 'string' },
  },
  schema: z.object({
    name: z.string().trim().min(1, 'must not be empty').max(200),
    team,
    'admin-email': z.email('must be an e-mail address').max(320),
    // bcrypt reads only the first 72 bytes; a longer password would be silently cut.
    'admin-password': z
      .string()
      .min(8, 'must be at least 8 characters')
      .refine((p) => Buffer.byteLength(p, 'utf8') <= 72, 'must be at most 72 bytes'),
    'admin-first-name': z.string().trim().min(1).max(100).optional(),
    'admin-last-name': z.string().trim().min(1).max(100).optional(),
  }),
  async run(input, runtime) {
    const created = await createClient(runtime.orm.em.fork(), {
      name: input.name,
      team: input.team,
      adminEmail: input['admin-email'],
      adminPassword: input['admin-password'],
      adminFirstName: input['admin-first-name'],
      adminLastName: input['admin-last-name'],
      hashRounds: runtime.config.PASSWORD_HASH_ROUNDS,
    });
    return { clientId: created.clientId, team: created.team, adminEmail: created.adminEmail };
  },
};

const day = z.iso.date({ message: 'must be a date YYYY-MM-DD' });

const statsRebuildCommand: Command<{ from: string; to: string; 'client-id'?: number }> = {
  name: 'stats rebuild',
  summary: 'Recomputes the insights roll-ups of whole UTC days from the stored events, as far back as the outbox keeps them (OUTBOX_RETENTION_DAYS); safe while the statistics worker runs.',
  optionHelp: [
    '--from <YYYY-MM-DD>         first day (UTC) to rebuild',
    '--to <YYYY-MM-DD>           last day (UTC) to rebuild, included',
    '--client-id <id>            only this client (default every client)',
  ],
  options: { from: { type: 'string' }, to: { type: 'string' }, 'client-id': { type: 'string' } },
  schema: z
    .object({ from: day, to: day, 'client-id': z.coerce.number().int().min(1).max(2147483647).optional() })
    .refine((v) => v.from <= v.to, { message: 'must not be after --to', path: ['from'] }),
  async run(input, runtime) {
    // --to names the last day; the rebuild takes the day after it (exclusive).
    const next = new Date(Date.parse(`${input.to}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    const bar = progressBar(process.stderr, 'stats rebuild', 'days');
    const result = await rebuildStats(runtime.config.DATABASE_URL, { from: input.from, to: next, clientId: input['client-id'] }, bar.update);
    bar.done();
    return { ...result, to: input.to };
  },
};

// Commands are added here; the usage text and dispatch follow from this list.
const COMMANDS: Command<any>[] = [createClientCommand, statsRebuildCommand];

class UsageError extends Error {
  constructor(
    message: string,
    /** The command whose usage to show; every command's when unknown. */
    readonly command?: Command<unknown>,
  ) {
    super(message);
  }
}

function commandUsage(c: Command<unknown>): string {
  return [`  npm run cli -- ${c.name} [options]`, `    ${c.summary}`, ...c.optionHelp.map((l) => `      ${l}`)].join('\n');
}

function usage(): string {
  return [
    'Usage: npm run cli -- <command> [options]',
    '',
    'Commands:',
    ...COMMANDS.map(commandUsage),
    '',
    'Every command takes --help. Settings come from the environment (DATABASE_URL, LOG_LEVEL, ...);',
    'the database is created and migrated if needed. The answer is one JSON line on stdout; logs go to stderr.',
    'Exit codes: 0 done, 1 refused or failed, 2 bad command line.',
  ].join('\n');
}

type Parsed = { kind: 'help'; text: string } | { kind: 'run'; command: Command<unknown>; input: unknown };

function parseCommandLine(argv: string[]): Parsed {
  // A command's name may be two words ("stats rebuild").
  const twoWords = argv.length >= 2 ? `${argv[0]} ${argv[1]}` : undefined;
  const [name, ...rest] = twoWords && COMMANDS.some((c) => c.name === twoWords) ? [twoWords, ...argv.slice(2)] : argv;
  if (name === undefined) throw new UsageError('no command given');
  if (name === '--help' || name === '-h' || name === 'help') return { kind: 'help', text: usage() };
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) throw new UsageError(`unknown command '${name}'`);
  let values: Record<string, unknown>;
  try {
    ({ values } = parseArgs({
      args: rest,
      options: { ...command.options, help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    // node:util's messages name the offending option ("Unknown option '--nme'").
    throw new UsageError(err instanceof Error ? err.message : String(err), command);
  }
  if (values.help) return { kind: 'help', text: `Usage:\n${commandUsage(command)}` };
  const parsed = command.schema.safeParse(values);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => {
      const flag = i.path.length ? `--${i.path.map(String).join('.')}` : 'options';
      const missing = i.code === 'invalid_type' && values[String(i.path[0])] === undefined;
      return `${flag}: ${missing ? 'required' : i.message}`;
    });
    throw new UsageError(problems.join('\n  '), command);
  }
  return { kind: 'run', command, input: parsed.data };
}

async function main(argv: string[]): Promise<number> {
  let parsed: Parsed;
  try {
    parsed = parseCommandLine(argv);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    const help = err.command ? `Usage:\n${commandUsage(err.command)}` : usage();
    process.stderr.write(`error: ${err.message}\n\n${help}\n`);
    return 2;
  }
  if (parsed.kind === 'help') {
    process.stdout.write(`${parsed.text}\n`);
    return 0;
  }

  let config: AppConfig;
  try {
    // Only warnings and worse by default: an operator reads the answer, not the migration log.
    config = loadConfig({ LOG_LEVEL: 'warn', ...process.env });
  } catch (err) {
    process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
  const log = createLogger(config.LOG_LEVEL, 'cli', pino.destination({ dest: 2, sync: true }));

  let runtime: Runtime | undefined;
  try {
    runtime = await createRuntime('cli', { config, migrate: true, log });
    const answer = await parsed.command.run(parsed.input, runtime);
    process.stdout.write(`${JSON.stringify(answer)}\n`);
    return 0;
  } catch (err) {
    if (!(err instanceof AppError)) log.debug({ err }, 'command failed');
    // A refused connection to a host with several addresses is an AggregateError with no message.
    const e = err as { message?: string; code?: string; errors?: { message?: string }[] };
    const reason = e.message || e.errors?.map((x) => x.message).join('; ') || e.code || String(err);
    process.stderr.write(`error: ${reason}\n`);
    return 1;
  } finally {
    await runtime?.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
