import type { EntityManager } from '@mikro-orm/postgresql';
import { hashSecret } from '../../../../shared/auth/password';
import type { PinEnforcement } from '../../../../shared/db/entities';
import { loadSettingsForUpdate } from './client-settings';

export interface SetPinInput {
  /** null removes the PIN. */
  pin: string | null;
  enforcement: PinEnforcement;
}

/** PUT /admin/security/pin: stores only the PIN's hash and its length (what the sorter app asks for). */
export async function setPin(em: EntityManager, clientId: number, input: SetPinInput, hashRounds: number): Promise<{ pinLength: number; enforcement: PinEnforcement }> {
  const pinHash = input.pin === null ? null : await hashSecret(input.pin, hashRounds);
  return em.transactional(async (tx) => {
    const settings = await loadSettingsForUpdate(tx, clientId);
    settings.pinHash = pinHash;
    settings.pinLength = input.pin?.length ?? 0;
    settings.pinEnforcement = input.enforcement;
    await tx.flush();
    return { pinLength: settings.pinLength, enforcement: settings.pinEnforcement };
  });
}
