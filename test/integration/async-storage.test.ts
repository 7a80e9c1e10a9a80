import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { AsyncLocalStorage } from 'node:async_hooks';
import { TransactionContext, type EntityManager } from '@mikro-orm/core';
import { initOrm, type Orm } from '../../shared/db/orm';
import { uniqueSuffix } from '../support/test-api';

const ROOT = path.resolve(__dirname, '../..');
/** Whether a storage is enabled (its stores kept by the async hooks): Node's own field. */
const enabled = (storage: AsyncLocalStorage<unknown>) => (storage as unknown as { enabled: boolean }).enabled;
const transactions = (TransactionContext as unknown as { storage: AsyncLocalStorage<unknown> }).storage;

/*
 * MikroORM's async storages (a flush, a transaction) turn Node 20's promise hooks on only while they
 * run (shared/db/async-storage.ts): a process that has written through the ORM runs its hot path
 * without them, and a transaction still sees its own entity manager while another one ends. Jest runs
 * each test inside a storage of its own (so the hooks are on in a test): the process-wide check runs
 * in a child process.
 */

describe('the promise hooks after the ORM', () => {
  let orm: Orm;
  beforeAll(async () => {
    orm = await initOrm(process.env.DATABASE_URL!, 3);
  });
  afterAll(async () => {
    await orm.close();
  });

  const opened = () => {
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    return { gate, open };
  };

  it('are off in a process once its transactions, flushes and findAndCount are over, and on during them', () => {
    const child = spawnSync(process.execPath, ['--import', 'tsx', 'test/support/promise-hooks-child.ts'], { cwd: ROOT, encoding: 'utf8', env: process.env, timeout: 25_000 });
    expect(child.stderr).toBe('');
    expect(JSON.parse(child.stdout)).toEqual({ before: false, during: true, after: false });
  });

  it('keep a transaction its own entity manager while another one ends beside it', async () => {
    const firstMayEnd = opened();
    const secondMayEnd = opened();
    const seen: { first?: EntityManager; second?: EntityManager; secondAfterFirst?: EntityManager; enabledAfterFirst?: boolean } = {};
    let ems: { first?: EntityManager; second?: EntityManager } = {};
    const first = orm.em.fork().transactional(async (em) => {
      ems = { ...ems, first: em };
      seen.first = TransactionContext.getEntityManager(em.name);
      await firstMayEnd.gate;
    });
    const second = orm.em.fork().transactional(async (em) => {
      ems = { ...ems, second: em };
      seen.second = TransactionContext.getEntityManager(em.name);
      await em.execute('create temporary table hooks_second (n int) on commit drop');
      await secondMayEnd.gate;
      seen.secondAfterFirst = TransactionContext.getEntityManager(em.name);
      seen.enabledAfterFirst = enabled(transactions);
      // Still the transaction's connection: its table, dropped at its commit, is there.
      expect(await em.execute('select n from hooks_second')).toEqual([]);
    });
    firstMayEnd.open();
    await first;
    secondMayEnd.open();
    await second;
    expect(seen.first).toBe(ems.first);
    expect(seen.second).toBe(ems.second);
    expect(seen.secondAfterFirst).toBe(ems.second);
    expect(seen.enabledAfterFirst).toBe(true);
    expect(enabled(transactions)).toBe(false);
    expect(TransactionContext.getEntityManager()).toBeUndefined();
  });

  it('roll back a transaction that throws, its storage disabled after it', async () => {
    const suffix = uniqueSuffix();
    await expect(
      orm.em.fork().transactional(async (em) => {
        await em.execute('create temporary table hooks_probe (n int) on commit drop');
        await em.execute('insert into hooks_probe values (1)');
        throw new Error(`refused ${suffix}`);
      }),
    ).rejects.toThrow(`refused ${suffix}`);
    expect(enabled(transactions)).toBe(false);
    expect(await orm.em.fork().execute("select to_regclass('pg_temp.hooks_probe') as t")).toEqual([{ t: null }]);
  });

  it('stay on for a storage entered with enterWith, until it is disabled', async () => {
    const storage = new AsyncLocalStorage<number>();
    await (async () => {
      storage.enterWith(1);
      await storage.run(2, async () => {
        expect(storage.getStore()).toBe(2);
      });
      expect(enabled(storage)).toBe(true);
      expect(storage.getStore()).toBe(1);
    })();
    storage.disable();
    const ran = new AsyncLocalStorage<number>();
    await ran.run(3, async () => {
      await Promise.resolve();
      expect(ran.getStore()).toBe(3);
    });
    expect(enabled(ran)).toBe(false);
  });
});
