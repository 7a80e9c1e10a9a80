import type { EntityManager } from '@mikro-orm/postgresql';
import { signAccessToken } from '../../../../shared/auth/jwt';
import { hashSecret, needsRehash, verifySecret } from '../../../../shared/auth/password';
import type { AppConfig } from '../../../../shared/config/config';
import { Employee, type IEmployee } from '../../../../shared/db/entities';
import { AppError } from '../../../../shared/errors/app-error';
import type { FailureRateLimiter } from '../../../../shared/rate-limit/rate-limiter';

// Compared against when the e-mail is unknown, so both failures take about the same time: one per
// cost setting, made on first use.
const dummyHashes = new Map<number, Promise<string>>();
function dummyHash(cost: number): Promise<string> {
  let h = dummyHashes.get(cost);
  if (!h) dummyHashes.set(cost, (h = hashSecret('not-a-password', cost)));
  return h;
}

export interface TokenAnswer {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
}

/** The answer of every sign-in (POST /token, POST /auto-login/redeem): a bearer token for the employee as it is now. */
export function tokenAnswer(employee: IEmployee, config: AppConfig): TokenAnswer {
  const access_token = signAccessToken(
    { employeeId: employee.id, clientId: employee.clientId, roles: employee.roles, email: employee.email, credentialsVersion: employee.credentialsVersion },
    config.JWT_SECRET,
    config.JWT_TTL_SECONDS,
  );
  return { access_token, token_type: 'Bearer', expires_in: config.JWT_TTL_SECONDS };
}

/**
 * POST /token: the sign-in. Failed sign-ins are counted per user name (TOKEN_RATE_LIMIT) and per
 * client address (TOKEN_RATE_LIMIT_PER_ADDRESS; the address is X-Forwarded-For's only behind a proxy
 * named in TRUST_PROXY), so neither a new address per try nor a new user name per try gets around it.
 */
export async function createToken(
  em: EntityManager,
  deps: { config: AppConfig; rateLimiter: FailureRateLimiter },
  credentials: { username: string; password: string },
  clientAddress: string,
): Promise<TokenAnswer> {
  const { config, rateLimiter } = deps;
  const username = credentials.username.trim().toLowerCase();
  const userKey = `token:user:${username}`;
  const addressKey = `token:addr:${clientAddress}`;
  const [userWait, addressWait] = await Promise.all([
    rateLimiter.blockedFor(userKey, config.TOKEN_RATE_LIMIT),
    rateLimiter.blockedFor(addressKey, config.TOKEN_RATE_LIMIT_PER_ADDRESS),
  ]);
  const wait = Math.max(userWait, addressWait);
  if (wait > 0) {
    const seconds = Math.ceil(wait / 1000);
    throw new AppError(
      'rate-limited',
      userWait > 0
        ? `Too many failed sign-ins for '${username}'. Try again in ${seconds} s.`
        : `Too many failed sign-ins from your address. Try again in ${seconds} s.`,
      { headers: { 'Retry-After': String(seconds) } },
    );
  }
  // E-mail addresses are stored lower-cased (services/api/routes/employees), so equality is exact.
  const employee = await em.findOne(Employee, { email: username });
  const ok = await verifySecret(credentials.password, employee?.passwordHash ?? (await dummyHash(config.PASSWORD_HASH_ROUNDS)));
  if (!employee || !ok || !employee.isActive) {
    await Promise.all([
      rateLimiter.recordFailure(userKey, config.TOKEN_RATE_WINDOW_MS),
      rateLimiter.recordFailure(addressKey, config.TOKEN_RATE_WINDOW_MS),
    ]);
    throw new AppError(
      'unauthorized',
      employee && ok ? 'This employee account is deactivated; ask an Admin to reactivate it.' : 'Unknown e-mail address or wrong password.',
    );
  }
  // Only the user name's count: a sign-in to one account must not clear an address guessing at others.
  await rateLimiter.reset(userKey);
  if (needsRehash(employee.passwordHash, config.PASSWORD_HASH_ROUNDS)) {
    // A bcrypt hash from before (or another cost): replaced now that the password is known. Only if
    // it is still the one verified, so a password changed meanwhile is not overwritten.
    const passwordHash = await hashSecret(credentials.password, config.PASSWORD_HASH_ROUNDS);
    await em.nativeUpdate(Employee, { id: employee.id, passwordHash: employee.passwordHash }, { passwordHash });
  }
  return tokenAnswer(employee, config);
}
