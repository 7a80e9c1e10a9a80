import { hotStatements, parseSnapshot, readSnapshot, renderSnapshot, snapshotDifferences } from '../support/hot-statements';

/*
 * The hot statements' SQL is committed (docs/sql/hot-statements.sql) so that a change to one is
 * reviewed with its plan; this fails while the code and the file differ (update: npm run sql:snapshot).
 */

describe('the snapshot of the hot statements', () => {
  const code = hotStatements();

  it('holds every hot statement exactly as the code sends it', () => {
    const differences = snapshotDifferences(code, parseSnapshot(readSnapshot()));
    if (differences.length > 0) {
      throw new Error(
        `docs/sql/hot-statements.sql is not what the code sends:\n  ${differences.join('\n  ')}\n` +
          'Review the change with its plan, then run `npm run sql:snapshot` and commit the file with the change.',
      );
    }
    expect(readSnapshot()).toBe(renderSnapshot(code));
  });

  it('covers the command path, the wall read, the relay and the consumer batches', () => {
    const names = new Set(code.map((s) => s.name));
    for (const name of ['resolve-wall-of-session', 'wall-load', 'product-by-code', 'scan-candidates', 'apply-wall-changes:lue', 'wall-view', 'outbox-advance']) {
      expect(names).toContain(name);
    }
  });

  it('names a statement whose SQL changed, one that is new and one that is gone', () => {
    const snapshot = parseSnapshot(renderSnapshot(code));
    expect(snapshotDifferences(code, snapshot)).toEqual([]);
    const [first, second, ...rest] = code;
    const changed = [{ ...first!, sql: `${first!.sql}\n   and true` }, ...rest, { name: 'a-new-one', module: 'x.queries.ts', sql: 'select 1' }];
    expect(snapshotDifferences(changed, snapshot)).toEqual([
      `${first!.name} (${first!.module}): its SQL differs from the snapshot's`,
      'a-new-one (x.queries.ts): new, not in the snapshot',
      `${second!.name}: in the snapshot, no longer in the code`,
    ]);
  });
});
