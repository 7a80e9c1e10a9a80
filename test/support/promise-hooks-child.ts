import { promiseHooksOn } from '../../shared/db/async-storage';
import { initOrm } from '../../shared/db/orm';
import { SortBoxItem } from '../../shared/db/entities';
import { createClient } from '../../shared/tenancy/create-client.use-case';

/*
 * A process that writes through the ORM the ways the API does (a transaction with its flushes, a
 * findAndCount), then prints whether its promise hooks are on: during the transaction, and after
 * (test/integration/async-storage.test.ts). Outside jest, whose tests run inside a storage of its own.
 */
async function main(): Promise<void> {
  const orm = await initOrm(process.env.DATABASE_URL!, 2);
  const before = await promiseHooksOn();
  let during = false;
  const suffix = `${process.pid}-${Date.now()}`;
  await orm.em.fork().transactional(async () => {
    during = await promiseHooksOn();
  });
  await createClient(orm.em.fork(), {
    name: `Hooks ${suffix}`,
    team: `team-${suffix}`,
    adminEmail: `admin-${suffix}@example.com`,
    adminPassword: `pw-${suffix}-secret`,
    hashRounds: 4,
  });
  await orm.em.fork().findAndCount(SortBoxItem, { id: 0 });
  const after = await promiseHooksOn();
  await orm.close();
  process.stdout.write(`${JSON.stringify({ before, during, after })}\n`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
