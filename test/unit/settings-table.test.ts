import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { configSchema } from '../../shared/config/config';
import { settingsTable, withSettingsTable, SETTINGS_TABLE_BEGIN, SETTINGS_TABLE_END } from '../../shared/config/settings-table';

const README = path.resolve(__dirname, '../../README.md');

describe("the README's settings table", () => {
  it('is the one the config schema writes (after a change of a setting: npm run docs:settings)', () => {
    const readme = readFileSync(README, 'utf8');
    const table = readme.slice(readme.indexOf(SETTINGS_TABLE_BEGIN) + SETTINGS_TABLE_BEGIN.length, readme.indexOf(SETTINGS_TABLE_END)).trim();
    expect(table).toEqual(settingsTable());
    expect(withSettingsTable(readme)).toBe(readme);
  });

  it('has a row for every setting, with its default from the schema', () => {
    const table = settingsTable();
    for (const name of Object.keys(configSchema.shape)) expect(table).toContain(`| \`${name}\` |`);
    expect(table).toContain('| `PORT` | `3000` | HTTP port of the API |');
    expect(table).toContain('| `JWT_TTL_SECONDS` | `43200` (12 h) |');
    expect(table).toContain('| `CATALOG_PORT` | unset |');
  });

  it('fails on a setting without a description, and on a README that does not say what the schema says', () => {
    expect(() => settingsTable(z.object({ PORT: z.coerce.number().default(1) }))).toThrow('PORT: no description in the config schema');
    const readme = readFileSync(README, 'utf8');
    const edited = readme.replace('| `PORT` | `3000` |', '| `PORT` | `8080` |');
    expect(edited).not.toBe(readme);
    expect(withSettingsTable(edited)).not.toBe(edited);
    expect(withSettingsTable(edited)).toBe(readme);
    expect(() => withSettingsTable('# no table here')).toThrow('no settings table markers');
  });
});
