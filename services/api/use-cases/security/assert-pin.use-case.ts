import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../../../shared/errors/app-error';
import { checkPin, pinSettings, type PinCaller, type PinDeps } from './pin-attempts';

/**
 * Server-side PIN enforcement for protected operations (cancelling a scan): where the client's
 * enforcement is 'server' and a PIN is set, the request must carry the right PIN (the X-Pin header).
 * Missing → 403 pin-required; wrong → 403 pin-invalid, counted like POST /security/pin/validate,
 * so 5 wrong PINs in 5 minutes → 429 rate-limited. With 'client' enforcement or no PIN, nothing is checked.
 */
export async function assertPin(em: EntityManager, deps: PinDeps, auth: PinCaller, pin: string | undefined): Promise<void> {
  const settings = await pinSettings(em, auth.clientId);
  if (settings.pinEnforcement !== 'server' || !settings.pinHash) return;
  if (pin === undefined || pin === '') {
    throw new AppError('pin-required', 'Your company requires its PIN for this action: send it in the X-Pin header.');
  }
  if (!(await checkPin(em, deps, auth, settings.pinHash, pin))) {
    throw new AppError('pin-invalid', 'The PIN is wrong. Ask a manager for the PIN; after 5 wrong PINs you must wait 5 minutes.');
  }
}
