import { loadConfig } from '../../shared/config/config';
import { checkConnectionBudget } from '../../shared/db/connection-budget';
import { initOrm } from '../../shared/db/orm';
import { OrmSql } from '../../shared/db/orm-sql';
import { createLogger } from '../../shared/logging/logger';

/* The PostgreSQL connection budget (docs/scaling.md): the start-up check, and the pool's acquire timeout. */

describe('database connection budget', () => {
  const log = createLogger('silent', 'test');

  it('warns when SERVICE_PROCESSES × DATABASE_POOL_MAX exceeds DATABASE_MAX_CONNECTIONS or the server', async () => {
    const orm = await initOrm(process.env.DATABASE_URL!, 1);
    try {
      const query = OrmSql.of(orm.em, false);
      const over = await checkConnectionBudget(loadConfig({ SERVICE_PROCESSES: '4', DATABASE_POOL_MAX: '10', DATABASE_MAX_CONNECTIONS: '30' }), query, log);
      expect(over.planned).toBe(40);
      expect(over.problems).toHaveLength(1);
      expect(over.problems[0]).toMatch(/exceed DATABASE_MAX_CONNECTIONS \(30\): lower DATABASE_POOL_MAX to 7/);
      expect(over.serverLimit).toBeGreaterThan(0);

      const fits = await checkConnectionBudget(loadConfig({ SERVICE_PROCESSES: '3', DATABASE_POOL_MAX: '10', DATABASE_MAX_CONNECTIONS: '30' }), query, log);
      expect(fits.problems).toEqual([]);

      const beyondServer = await checkConnectionBudget(loadConfig({ SERVICE_PROCESSES: '1000', DATABASE_POOL_MAX: '10' }), query, log);
      expect(beyondServer.problems.join()).toMatch(/exceeds what PostgreSQL accepts/);
    } finally {
      await orm.close();
    }
  });

  it('fails a query that waits longer than DATABASE_ACQUIRE_TIMEOUT_MS for a pool connection (a KnexTimeoutError, which the API treats as a dependency outage)', async () => {
    const orm = await initOrm(process.env.DATABASE_URL!, 1, { acquireTimeoutMs: 300, applicationName: 'sorting:budget-test' });
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    try {
      // The pool's one connection, held by an open transaction.
      let inside!: () => void;
      const holding = new Promise<void>((r) => (inside = r));
      const holder = orm.em.fork().transactional(async (tx) => {
        await tx.execute('select 1');
        inside();
        await held;
      });
      await holding;
      const started = Date.now();
      const err = (await orm.em.fork().execute('select 1').then(() => null, (e: Error) => e)) as Error | null;
      // MikroORM wraps knex's KnexTimeoutError in a DriverException that keeps its message.
      expect(err?.name).toBe('DriverException');
      expect(err?.message).toMatch(/Knex: Timeout acquiring a connection/);
      expect(Date.now() - started).toBeLessThan(5_000);
      release();
      await holder;
      const [row] = await orm.em.fork().execute<{ name: string }[]>("select current_setting('application_name') as name");
      expect(row!.name).toBe('sorting:budget-test');
    } finally {
      release();
      await orm.close();
    }
  });
});
