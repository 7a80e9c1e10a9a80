import type { EntityManager } from '@mikro-orm/postgresql';
import { ClientSettings } from '../../../../shared/db/entities';
import { loadSettingsForUpdate } from './client-settings';

/** GET /subscriptions/sorting: a client without a settings row has the default, enabled. */
export async function isSortingEnabled(em: EntityManager, clientId: number): Promise<boolean> {
  const settings = await em.findOne(ClientSettings, { clientId });
  return settings?.sortingEnabled ?? true;
}

/** PUT /admin/subscriptions/sorting: enabling is free; disabling refuses sorting operations (403 subscription-disabled). */
export async function setSortingEnabled(em: EntityManager, clientId: number, enabled: boolean): Promise<{ enabled: boolean }> {
  return em.transactional(async (tx) => {
    const settings = await loadSettingsForUpdate(tx, clientId);
    settings.sortingEnabled = enabled;
    await tx.flush();
    return { enabled: settings.sortingEnabled };
  });
}
