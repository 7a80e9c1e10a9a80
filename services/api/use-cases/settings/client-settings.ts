import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ClientSettings, type IClientSettings } from '../../../../shared/db/entities';

/** The client's settings row; created with the defaults when missing (a client made before settings existed). */
export async function loadSettingsForUpdate(tx: EntityManager, clientId: number): Promise<IClientSettings> {
  await tx.execute(`insert into client_settings (client_id) values (?) on conflict (client_id) do nothing`, [clientId], 'run');
  return tx.findOneOrFail(ClientSettings, { clientId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
}
