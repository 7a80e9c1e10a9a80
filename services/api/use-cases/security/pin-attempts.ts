import type { EntityManager } from '@mikro-orm/postgresql';
import type { AuthClaims } from '../../../../shared/auth/jwt';
import { hashSecret, needsRehash, verifySecret } from '../../../../shared/auth/password';
import type { AppConfig } from '../../../../shared/config/config';
import { ClientSettings } from '../../../../shared/db/entities';
import { AppError } from '../../../../shared/errors/app-error';
import type { FailureRateLimiter } from '../../../../shared/rate-limit/rate-limiter';

/** docs/api.md §9: after 5 failed PIN attempts within 5 minutes, one employee is refused with 429. */
export const PIN_FAILURE_LIMIT = 5;
export const PIN_FAILURE_WINDOW_MS = 5 * 60_000;

export interface PinDeps {
  rateLimiter: FailureRateLimiter;
  config: Pick<AppConfig, 'PASSWORD_HASH_ROUNDS'>;
}
export type PinCaller = Pick<AuthClaims, 'clientId' | 'employeeId'>;

/** Counted per employee (not per device), so a sorter cannot escape the limit by switching scanners. */
function attemptKey(caller: PinCaller): string {
  return `pin:${caller.clientId}:${caller.employeeId}`;
}

export async function pinSettings(em: EntityManager, clientId: number): Promise<{ pinHash: string | null; pinLength: number; pinEnforcement: 'client' | 'server' }> {
  const s = await em.findOne(ClientSettings, { clientId });
  return { pinHash: s?.pinHash ?? null, pinLength: s?.pinHash ? s.pinLength : 0, pinEnforcement: s?.pinEnforcement ?? 'client' };
}

/**
 * Checks a PIN against the stored hash, counting failures. A blocked employee is refused with 429
 * before the PIN is looked at, so guessing on while blocked learns nothing, even with the right PIN.
 * A right PIN clears the count.
 */
export async function checkPin(em: EntityManager, deps: PinDeps, caller: PinCaller, pinHash: string, pin: string): Promise<boolean> {
  const key = attemptKey(caller);
  const wait = await deps.rateLimiter.blockedFor(key, PIN_FAILURE_LIMIT);
  if (wait > 0) {
    const seconds = Math.ceil(wait / 1000);
    throw new AppError('rate-limited', `Too many wrong PINs: ${PIN_FAILURE_LIMIT} within ${PIN_FAILURE_WINDOW_MS / 60_000} minutes. Try again in ${seconds} s.`, {
      headers: { 'Retry-After': String(seconds) },
    });
  }
  const ok = pin.length > 0 && pin.length <= 64 && (await verifySecret(pin, pinHash));
  if (ok) {
    await deps.rateLimiter.reset(key);
    // A bcrypt PIN hash from before: replaced by the current format, unless the PIN changed meanwhile.
    if (needsRehash(pinHash, deps.config.PASSWORD_HASH_ROUNDS)) {
      const fresh = await hashSecret(pin, deps.config.PASSWORD_HASH_ROUNDS);
      await em.nativeUpdate(ClientSettings, { clientId: caller.clientId, pinHash }, { pinHash: fresh });
    }
  } else await deps.rateLimiter.recordFailure(key, PIN_FAILURE_WINDOW_MS);
  return ok;
}
