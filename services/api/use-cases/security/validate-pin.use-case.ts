import type { EntityManager } from '@mikro-orm/postgresql';
import { checkPin, pinSettings, type PinCaller, type PinDeps } from './pin-attempts';

/**
 * POST /security/pin/validate: { valid }. With no PIN configured every PIN is valid (there is nothing
 * to protect; GET /security/pin/length answers 0 and clients skip the check).
 */
export async function validatePin(em: EntityManager, deps: PinDeps, caller: PinCaller, pin: string): Promise<{ valid: boolean }> {
  const { pinHash } = await pinSettings(em, caller.clientId);
  if (!pinHash) return { valid: true };
  return { valid: await checkPin(em, deps, caller, pinHash, pin) };
}

/** GET /admin/security/pin: the PIN's length (0: none) and where it is enforced; never the PIN. */
export async function pinConfiguration(em: EntityManager, clientId: number): Promise<{ pinLength: number; enforcement: 'client' | 'server' }> {
  const s = await pinSettings(em, clientId);
  return { pinLength: s.pinLength, enforcement: s.pinEnforcement };
}

/** GET /security/pin/length: 0 when no PIN is configured. */
export async function pinLength(em: EntityManager, clientId: number): Promise<number> {
  return (await pinSettings(em, clientId)).pinLength;
}
