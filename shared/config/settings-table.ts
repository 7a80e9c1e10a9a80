import type { z } from 'zod';
import { configSchema } from './config';

/** The README's settings table sits between these two lines; `npm run docs:settings` rewrites what is between. */
export const SETTINGS_TABLE_BEGIN = '<!-- settings table: written from shared/config/config.ts by `npm run docs:settings`, do not edit by hand -->';
export const SETTINGS_TABLE_END = '<!-- end of the settings table -->';

/** What a setting's schema carries besides its parsing: `.describe()` and, where the default needs words, `.meta()`. */
interface SettingMeta {
  description?: string;
  /** Shown instead of the default value (a default the schema cannot hold: one that depends on NODE_ENV, or on another setting). */
  shownDefault?: string;
  /** Said after the default value, in parentheses (`43200` (12 h)). */
  defaultNote?: string;
}

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function shownDefault(name: string, schema: z.ZodType, meta: SettingMeta): string {
  if (meta.shownDefault !== undefined) return meta.shownDefault;
  // The default is what the schema gives a setting that is not set.
  const parsed = schema.safeParse(undefined);
  if (!parsed.success) throw new Error(`${name}: the schema refuses an unset value; give its default in words (.meta({ shownDefault }))`);
  const value = parsed.data;
  if (value === undefined) return 'unset';
  const shown = `\`${String(value)}\``;
  return meta.defaultNote ? `${shown} (${meta.defaultNote})` : shown;
}

/** The table's lines: one row per setting, in the schema's order. A setting without a description throws. */
export function settingsTable(schema: z.ZodObject = configSchema): string {
  const rows = Object.entries(schema.shape).map(([name, setting]) => {
    const meta = ((setting as z.ZodType).meta() ?? {}) as SettingMeta;
    if (!meta.description?.trim()) throw new Error(`${name}: no description in the config schema (.describe())`);
    return `| \`${name}\` | ${cell(shownDefault(name, setting as z.ZodType, meta))} | ${cell(meta.description.trim())} |`;
  });
  return ['| setting | default | meaning |', '|---|---|---|', ...rows].join('\n');
}

/** The README with the table between the markers written from the schema. Throws when a marker is missing. */
export function withSettingsTable(readme: string, table = settingsTable()): string {
  const begin = readme.indexOf(SETTINGS_TABLE_BEGIN);
  const end = readme.indexOf(SETTINGS_TABLE_END);
  if (begin < 0 || end < begin) throw new Error(`README.md has no settings table markers (${SETTINGS_TABLE_BEGIN} … ${SETTINGS_TABLE_END})`);
  return `${readme.slice(0, begin + SETTINGS_TABLE_BEGIN.length)}\n${table}\n${readme.slice(end)}`;
}
