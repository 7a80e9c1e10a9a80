import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ClientSettings, type IClientSettings } from '../../../../shared/db/entities';
import { emSql } from '../../../../shared/db/orm-sql';
import { ensureClientSettings } from './settings.queries';

/** The client's settings row; created with the defaults when missing (a client made before settings existed). */
export async function loadSettingsForUpdate(tx: EntityManager, clientId: number): Promise<IClientSettings> {
  await ensureClientSettings(emSql(tx), { clientId });
  return tx.findOneOrFail(ClientSettings, { clientId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
}
