import type { EntityManager } from '@mikro-orm/postgresql';
import { ClientSettings } from '../../../../shared/db/entities';
import { loadSettingsForUpdate } from './client-settings';
import { TtlCache } from '../../../../shared/cache/ttl-cache';
import type { SqlRunner } from '../../../../shared/db/named-sql';
import { sortingEnabled } from './settings.queries';

// Every sorting request checks the subscription; remembering the answer a few seconds saves a query
// on the scan path. A change made through this process is seen at once, through another within the TTL.
const gate = new TtlCache<number, boolean>({ max: 10_000, ttlMs: 5000 });

/** The check before every sorting operation (403 subscription-disabled), cached per process; `db`: plain SQL on the pool. */
export async function sortingAllowed(db: SqlRunner, clientId: number): Promise<boolean> {
  const hit = gate.get(clientId);
  if (hit !== undefined) return hit;
  const [row] = await sortingEnabled(db, { clientId });
  const enabled = row?.sorting_enabled ?? true;
  gate.set(clientId, enabled);
  return enabled;
}

/** GET /subscriptions/sorting: a client without a settings row has the default, enabled. */
export async function isSortingEnabled(em: EntityManager, clientId: number): Promise<boolean> {
  const settings = await em.findOne(ClientSettings, { clientId });
  return settings?.sortingEnabled ?? true;
}

/** PUT /admin/subscriptions/sorting: enabling is free; disabling refuses sorting operations (403 subscription-disabled). */
export async function setSortingEnabled(em: EntityManager, clientId: number, enabled: boolean): Promise<{ enabled: boolean }> {
  const result = await em.transactional(async (tx) => {
    const settings = await loadSettingsForUpdate(tx, clientId);
    settings.sortingEnabled = enabled;
    await tx.flush();
    return { enabled: settings.sortingEnabled };
  });
  gate.delete(clientId); // after the commit, so no request re-reads the old value into the cache
  return result;
}
