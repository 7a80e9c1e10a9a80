import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Where the committed migrations live; `index.ts` there lists them in the order they run. */
export const MIGRATIONS_DIR = join(__dirname, 'migrations');

const USAGE = 'Usage: npm run migration:create -- <name> [--timestamp YYYYMMDDHHMMSS]   (name: letters, digits, - or _)';

export interface CreatedMigration {
  className: string;
  file: string;
}

/** `YYYYMMDDHHMMSS` in UTC: the same form as the committed migrations' names. */
export function migrationTimestamp(now = new Date()): string {
  return now.toISOString().replace(/[-:T]/g, '').slice(0, 14);
}

function template(className: string): string {
  return `import { Migration } from '@mikro-orm/migrations';

/** Say here what this migration adds and why. Never edit a migration once it is committed: add another. */
export class ${className} extends Migration {
  override async up(): Promise<void> {
    // this.addSql(\`create table ... ;\`);
  }

  override async down(): Promise<void> {
    // this.addSql('drop table if exists ... ;');
  }
}
`;
}

/**
 * Writes an empty migration class `Migration<timestamp>_<name>` and appends it to the list in
 * `index.ts`, which must keep its usual shape (imports first, then the `migrationsList` array).
 * Names sort by timestamp and the list runs in order, so the timestamp must be later than every
 * migration's already there.
 */
export function createMigration(rawName: string, timestamp: string, dir = MIGRATIONS_DIR): CreatedMigration {
  const name = rawName.trim().toLowerCase().replace(/-/g, '_');
  if (!/^[a-z][a-z0-9_]{0,59}$/.test(name)) throw new Error(`'${rawName}' is not a migration name. ${USAGE}`);
  if (!/^\d{14}$/.test(timestamp)) throw new Error(`'${timestamp}' is not a timestamp (YYYYMMDDHHMMSS). ${USAGE}`);
  const existing = readdirSync(dir)
    .map((f) => /^Migration(\d{14})_.*\.ts$/.exec(f)?.[1])
    .filter((t): t is string => t !== undefined)
    .sort();
  const latest = existing.at(-1);
  if (latest !== undefined && timestamp <= latest) {
    throw new Error(`The timestamp ${timestamp} is not later than the last migration's (${latest}); migrations run in timestamp order.`);
  }
  const className = `Migration${timestamp}_${name}`;
  const file = join(dir, `${className}.ts`);
  if (existsSync(file)) throw new Error(`${file} exists already.`);

  const indexFile = join(dir, 'index.ts');
  const index = readFileSync(indexFile, 'utf8');
  const lastImport = index.lastIndexOf("import { Migration");
  const listEnd = index.lastIndexOf('];');
  if (lastImport < 0 || listEnd < lastImport || !index.includes('migrationsList')) {
    throw new Error(`${indexFile} does not have its usual shape; nothing was written.`);
  }
  const importEnd = index.indexOf('\n', lastImport) + 1;
  const updated =
    index.slice(0, importEnd) +
    `import { ${className} } from './${className}';\n` +
    index.slice(importEnd, listEnd) +
    `  { name: '${className}', class: ${className} },\n` +
    index.slice(listEnd);

  writeFileSync(file, template(className), { flag: 'wx' });
  writeFileSync(indexFile, updated);
  return { className, file };
}

function main(argv: string[]): void {
  const args = [...argv];
  let timestamp = migrationTimestamp();
  const at = args.indexOf('--timestamp');
  if (at >= 0) {
    timestamp = args[at + 1] ?? '';
    args.splice(at, 2);
  }
  if (args.length !== 1) throw new Error(USAGE);
  const { className, file } = createMigration(args[0]!, timestamp);
  process.stdout.write(`Created ${file}\nRegistered ${className} in ${join(MIGRATIONS_DIR, 'index.ts')}\nWrite its SQL in up() and down(), then: npm run migrate\n`);
}

if (require.main === module) {
  try {
    main(process.argv.slice(2));
  } catch (err) {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  }
}
