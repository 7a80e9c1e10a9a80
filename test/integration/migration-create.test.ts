import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { createMigration, MIGRATIONS_DIR, migrationTimestamp } from '../../shared/db/migration-create.cli';

// A copy of the committed migrations, below the repository's node_modules so the copy's imports
// (@mikro-orm/migrations) resolve as the originals do; the committed folder is never touched.
const ROOT = path.resolve(__dirname, '../..');
const CACHE = path.join(ROOT, 'node_modules/.cache');
mkdirSync(CACHE, { recursive: true });
const dir = mkdtempSync(path.join(CACHE, 'migration-create-'));
cpSync(MIGRATIONS_DIR, dir, { recursive: true });

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The list as the service loads it (through tsx, as `npm run migrate` does): names and whether each has up(). */
function loadList(): { name: string; up: string }[] {
  const script =
    `const { migrationsList } = require(${JSON.stringify(path.join(dir, 'index.ts'))});` +
    'console.log(JSON.stringify(migrationsList.map((m) => ({ name: m.name, up: typeof m.class.prototype.up }))));';
  return JSON.parse(execFileSync(path.join(ROOT, 'node_modules/.bin/tsx'), ['-e', script], { cwd: ROOT, timeout: 60_000 }).toString());
}

jest.setTimeout(90_000);

describe('npm run migration:create', () => {
  it('writes an empty migration class and appends it to the list that runs', () => {
    const before = loadList();
    const { className, file } = createMigration('Add-Label_Jobs', '29991231235959', dir);

    expect(className).toBe('Migration29991231235959_add_label_jobs');
    expect(path.dirname(file)).toBe(dir);
    expect(readFileSync(file, 'utf8')).toContain(`export class ${className} extends Migration`);
    const after = loadList();
    expect(after.map((m) => m.name)).toEqual([...before.map((m) => m.name), className]);
    expect(after.every((m) => m.up === 'function')).toBe(true);
  });

  it('refuses a timestamp not later than the last migration, and a bad name, writing nothing', () => {
    const index = readFileSync(path.join(dir, 'index.ts'), 'utf8');
    expect(() => createMigration('late', '20000101000000', dir)).toThrow(/not later than the last migration/);
    expect(() => createMigration('no spaces', '30000101000000', dir)).toThrow(/not a migration name/);
    expect(() => createMigration('ok', '3000-01-01', dir)).toThrow(/not a timestamp/);
    expect(readFileSync(path.join(dir, 'index.ts'), 'utf8')).toBe(index);
  });

  it('names by the UTC time of creation', () => {
    expect(migrationTimestamp(new Date('2026-11-23T07:05:09.123Z'))).toBe('20261123070509');
  });
});
