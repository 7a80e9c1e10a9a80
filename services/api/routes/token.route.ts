import { z } from 'zod';
import { AppError } from '../../../shared/errors/app-error';
import { Employee } from '../../../shared/db/entities';
import { signAccessToken } from '../../../shared/auth/jwt';
import { hashSecret, needsRehash, verifySecret } from '../../../shared/auth/password';
import { defineRoute } from '../http/route';

const tokenRequest = z.object({
  username: z.string().min(1).max(320).describe("The employee's e-mail address"),
  password: z.string().min(1).max(1024),
});

const tokenResponse = z.object({
  access_token: z.string(),
  token_type: z.literal('Bearer'),
  expires_in: z.number().int(),
});

// Compared against when the e-mail is unknown, so both failures take about the same time: one per
// cost setting, made on first use.
const dummyHashes = new Map<number, Promise<string>>();
function dummyHash(cost: number): Promise<string> {
  let h = dummyHashes.get(cost);
  if (!h) dummyHashes.set(cost, (h = hashSecret('not-a-password', cost)));
  return h;
}

/** POST /token: the sign-in. Failures are counted per address and user name (docs/api.md §1: 429). */
export const tokenRoute = defineRoute({
  method: 'post',
  path: '/token',
  operationId: 'CreateToken',
  summary: 'Sign in: exchange an e-mail and password for a bearer token (JWT)',
  tags: ['Authentication'],
  access: 'public',
  body: tokenRequest,
  response: tokenResponse,
  errors: ['unauthorized', 'rate-limited'],
  handler: async ({ body, em, deps, req }) => {
    const { config, rateLimiter } = deps;
    const username = body.username.trim().toLowerCase();
    const key = `token:${req.ip ?? 'unknown'}:${username}`;
    const wait = await rateLimiter.blockedFor(key, config.TOKEN_RATE_LIMIT);
    if (wait > 0) {
      const seconds = Math.ceil(wait / 1000);
      throw new AppError('rate-limited', `Too many failed sign-ins for '${username}'. Try again in ${seconds} s.`, {
        headers: { 'Retry-After': String(seconds) },
      });
    }
    // E-mail addresses are stored lower-cased (services/api/routes/employees), so equality is exact.
    const employee = await em.findOne(Employee, { email: username });
    const ok = await verifySecret(body.password, employee?.passwordHash ?? (await dummyHash(config.PASSWORD_HASH_ROUNDS)));
    if (!employee || !ok || !employee.isActive) {
      await rateLimiter.recordFailure(key, config.TOKEN_RATE_WINDOW_MS);
      throw new AppError(
        'unauthorized',
        employee && ok ? 'This employee account is deactivated; ask an Admin to reactivate it.' : 'Unknown e-mail address or wrong password.',
      );
    }
    await rateLimiter.reset(key);
    if (needsRehash(employee.passwordHash, config.PASSWORD_HASH_ROUNDS)) {
      // A bcrypt hash from before (or another cost): replaced now that the password is known. Only if
      // it is still the one verified, so a password changed meanwhile is not overwritten.
      const passwordHash = await hashSecret(body.password, config.PASSWORD_HASH_ROUNDS);
      await em.nativeUpdate(Employee, { id: employee.id, passwordHash: employee.passwordHash }, { passwordHash });
    }
    const access_token = signAccessToken(
      { employeeId: employee.id, clientId: employee.clientId, roles: employee.roles, email: employee.email },
      config.JWT_SECRET,
      config.JWT_TTL_SECONDS,
    );
    return { access_token, token_type: 'Bearer' as const, expires_in: config.JWT_TTL_SECONDS };
  },
});
