import { readFileSync } from 'node:fs';
import path from 'node:path';
import { metricsRegistry } from '../../services/api/http/metrics';
import { kindsOfGroup, WORKER_KIND_NAMES } from '../../shared/runtime/worker-kinds';
import { EVENT_CONSUMERS } from '../support/event-consumers';

/*
 * The worker kinds (shared/runtime/worker-kinds.ts) and the event consumers (each kind's code,
 * workers/event-consumers.ts) are written out by hand where a reader looks for them: the README's commands and
 * folder tree, docs/api.md, docs/operations.md, docs/architecture.md and the metrics' help. A kind
 * or a consumer added in code and missing from one of those lists fails here.
 */

const ROOT = path.resolve(__dirname, '../..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

/** The text of `file` from `start` to the first `end` after it (a list and its sentence). */
function passage(file: string, start: string, end: string): string {
  const text = read(file);
  const from = text.indexOf(start);
  if (from < 0) throw new Error(`${file}: no '${start}'`);
  const to = text.indexOf(end, from + start.length);
  if (to < 0) throw new Error(`${file}: no '${end}' after '${start}'`);
  return text.slice(from, to);
}

const missing = (text: string, names: readonly string[], as: (n: string) => string) => names.filter((n) => !text.includes(as(n)));
const quoted = (n: string) => `\`${n}\``;
const CONSUMERS = Object.keys(EVENT_CONSUMERS);

describe('every worker kind and event consumer is in each list of them', () => {
  it.each([
    ['README.md', 'npm run start:worker -- <kind>', '\n', WORKER_KIND_NAMES, quoted],
    ['README.md', 'workers/    ', ': one folder per worker', WORKER_KIND_NAMES, (n: string) => `${n}/`],
    ['docs/api.md', 'npm run start:worker -- <kind>', '\n', WORKER_KIND_NAMES, quoted],
    ['docs/architecture.md', '`workers/main.ts <kind>', 'the names and their process groups', WORKER_KIND_NAMES, quoted],
    ['docs/operations.md', '| `pipeline` |', '\n', kindsOfGroup('pipeline'), quoted],
    ['docs/operations.md', 'Roll the **workers first**', 'then the API', WORKER_KIND_NAMES, quoted],
    ['docs/operations.md', '| `outbox_consumer_lag_seconds{consumer}`', '\n', CONSUMERS, quoted],
  ] as const)('%s, at "%s"', (file, start, end, names, as) => {
    expect(missing(passage(file, start, end), names, as)).toEqual([]);
  });

  it('the consumer lag metric names every consumer in its help', async () => {
    const help = (await metricsRegistry.getSingleMetric('outbox_consumer_lag_seconds')?.get())?.help ?? '';
    expect(help).toMatch(/^Per event consumer/);
    expect(missing(help, CONSUMERS, (n) => n)).toEqual([]);
  });
});
