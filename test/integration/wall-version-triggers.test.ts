import { Client } from 'pg';
import type { Query } from '../../shared/db/named-sql';
import { WALL_ACTOR_APPLICATION_NAME, WALL_VERSIONED_TABLES } from '../../shared/db/entities/wall-versions';
import { Wall } from '../../shared/db/entities/wall.entity';
import { loadWall } from '../../workers/sorting/queries/wall-load.queries';
import { productByCode } from '../../workers/sorting/queries/wall-reads.queries';
import { useTestApi } from '../support/test-api';

/*
 * The wall's actor holds in memory what its load (and its barcode cache) reads; a write to any of those
 * rows must move the wall's version, which the database's triggers do (shared/db/entities/wall-versions.ts).
 * This ties the three together on the migrated database: the triggers there, the declared list, and the
 * tables the actor's statements read (from their plans), so a table added to the load without a
 * trigger fails here rather than deciding commands from rows that changed.
 */
describe('wall-version triggers: every table the actor holds has one', () => {
  const api = useTestApi();
  let pg: Client;
  beforeAll(async () => {
    pg = new Client({ connectionString: api.runtime.config.DATABASE_URL });
    await pg.connect();
  });
  afterAll(async () => {
    await pg?.end();
  });

  /** The tables a statement reads, from its plan (every scan's relation, subplans included). */
  async function tablesReadBy<P extends object>(q: Query<P, unknown>, params: P): Promise<string[]> {
    const { rows } = await pg.query<{ 'QUERY PLAN': unknown }>(`explain (format json) ${q.statement.text}`, q.statement.values(params));
    const found = new Set<string>();
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(walk);
      else if (node && typeof node === 'object') {
        const rel = (node as Record<string, unknown>)['Relation Name'];
        if (typeof rel === 'string') found.add(rel);
        Object.values(node).forEach(walk);
      }
    };
    walk(rows[0]!['QUERY PLAN']);
    return [...found].sort();
  }

  /** The tables with a trigger that moves walls' versions, and each trigger's definition. */
  async function triggers(): Promise<{ table: string; def: string }[]> {
    const { rows } = await pg.query<{ table: string; def: string }>(
      `select c.relname as table, pg_get_triggerdef(t.oid) as def
         from pg_trigger t join pg_class c on c.oid = t.tgrelid join pg_proc p on p.oid = t.tgfoid
        where not t.tgisinternal and p.proname in ('wall_rows_written', 'wall_row_written', 'wall_order_rows_written', 'wall_codes_written', 'wall_product_skus_written', 'wall_table_truncated')`,
    );
    return rows;
  }

  it('the declared tables are the triggered ones, each trigger leaves the actors\' connections out by the one name', async () => {
    const found = await triggers();
    expect([...new Set(found.map((t) => t.table))].sort()).toEqual([...WALL_VERSIONED_TABLES].sort());
    for (const t of found) expect([t.table, t.def.includes(`<> '${WALL_ACTOR_APPLICATION_NAME}'::text`)]).toEqual([t.table, true]);
  });

  it("the actor's writes copy no rows into transition tables, but for order lines, which uploads update by the thousand", async () => {
    // PostgreSQL fills a statement's transition tables whatever the trigger's WHEN clause says: on the
    // rows only the actor writes, its triggers are row-level, their clause read before anything is copied.
    const { rows } = await pg.query<{ table: string; event: string; statement: boolean; copies: boolean }>(`
      select c.relname as table, e.event, (t.tgtype & 1) = 0 as statement, t.tgoldtable is not null or t.tgnewtable is not null as copies
        from pg_trigger t join pg_class c on c.oid = t.tgrelid
        cross join lateral (values ('insert', 4), ('update', 16), ('delete', 8)) e(event, bit)
       where not t.tgisinternal and t.tgname like '%_moves_walls' and (t.tgtype & e.bit) <> 0
         and (c.relname, e.event) in (('sort_box', 'insert'), ('sort_box', 'update'), ('sort_box', 'delete'), ('sorter_session', 'insert'),
                                     ('sorter_session', 'update'), ('sort_box_item', 'insert'), ('sort_box_item', 'update'), ('order_item', 'update'))
       order by 1, 2`);
    expect(rows.map((r) => `${r.table} ${r.event}: ${r.statement ? 'statement' : 'row'}${r.copies ? ', copies' : ''}`)).toEqual([
      'order_item update: statement, copies',
      'sort_box delete: row',
      'sort_box insert: row',
      'sort_box update: row',
      'sort_box_item insert: row',
      'sort_box_item update: row',
      'sorter_session insert: row',
      'sorter_session update: row',
    ]);
  });

  it('every table the actor loads or caches is triggered (the wall row moves its own version)', async () => {
    const loaded = await tablesReadBy(loadWall, { clientId: 1, wallId: 1, itemIds: 1, sessionIds: 1 });
    const cached = await tablesReadBy(productByCode, { clientId: 1, code: 'X' });
    // A parser that found nothing would pass everything below.
    expect(loaded).toEqual(expect.arrayContaining(['wall', 'sort_box', 'sort_box_item', 'orders']));
    const triggered = new Set((await triggers()).map((t) => t.table));
    const { rows: own } = await pg.query(`select 1 from pg_trigger t join pg_class c on c.oid = t.tgrelid where c.relname = 'wall' and t.tgname = 'wall_version_bump'`);
    expect(own).toHaveLength(1);
    expect([...new Set([...loaded, ...cached])].filter((t) => t !== 'wall' && !triggered.has(t))).toEqual([]);
  });

  it('the Wall entity declares the version the triggers move', () => {
    const meta = api.runtime.orm.getMetadata().get(Wall.meta.className);
    expect(meta.properties.version?.fieldNames).toEqual(['version']);
  });
});
