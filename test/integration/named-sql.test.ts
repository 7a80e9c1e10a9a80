import { Client as PgClient } from 'pg';
import { NamedStatement, query } from '../../shared/db/named-sql';
import { SqlClient } from '../../shared/db/sql-pool';

/* Named parameters of the hot path's plain SQL (shared/db/named-sql.ts, docs/architecture.md "ORM or plain SQL"). */

describe('named SQL statements', () => {
  it('numbers each named parameter once, in order of first use, and leaves casts alone', () => {
    const s = new NamedStatement('unit-numbering', 'select :a::int, :b, x::text from t where y = :a and z = :c::jsonb');
    expect(s.text).toBe('select $1::int, $2, x::text from t where y = $1 and z = $3::jsonb');
    expect(s.params).toEqual(['a', 'b', 'c']);
    expect(s.values({ c: '{}', b: null, a: 7, extra: 'ignored' })).toEqual([7, null, '{}']);
  });

  it('throws on a missing parameter and on a second statement of the same name', () => {
    const s = new NamedStatement('unit-missing', 'select :a, :b');
    expect(() => s.values({ a: 1 })).toThrow("SQL statement 'unit-missing': no value for :b");
    expect(() => new NamedStatement('unit-missing', 'select 1')).toThrow(/two SQL statements are named 'unit-missing'/);
  });

  it('runs as a typed function on a real connection, named (prepared) or not', async () => {
    const q = query<{ a: number; b: string }, { a: number; b: string; again: number }>('unit-run', 'select :a::int as a, :b::text as b, :a::int + 1 as again');
    for (const prepared of [true, false]) {
      const pg = new PgClient({ connectionString: process.env.DATABASE_URL });
      await pg.connect();
      try {
        const db = new SqlClient(pg, prepared);
        expect(await q(db, { a: 41, b: 'x' })).toEqual([{ a: 41, b: 'x', again: 42 }]);
        expect(await q(db, { a: 1, b: 'y' })).toEqual([{ a: 1, b: 'y', again: 2 }]);
      } finally {
        await pg.end();
      }
    }
    expect(q.statement.name).toBe('unit-run');
  });
});
