import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { withSettingsTable } from './settings-table';

/**
 * `npm run docs:settings`: writes the README's settings table from the config schema. Run it after
 * adding or changing a setting; test/unit/settings-table.test.ts fails while they differ.
 */
const README = path.resolve(__dirname, '..', '..', 'README.md');

try {
  const before = readFileSync(README, 'utf8');
  const after = withSettingsTable(before);
  if (after === before) console.log('README.md: the settings table is up to date');
  else {
    writeFileSync(README, after);
    console.log('README.md: settings table written from shared/config/config.ts');
  }
} catch (err) {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
}
