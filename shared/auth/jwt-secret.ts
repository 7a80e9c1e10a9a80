import { randomBytes } from 'node:crypto';
import type { AppConfig } from '../config/config';
import type { SqlRunner } from '../db/named-sql';
import { insertServiceSecret, selectServiceSecret } from './jwt-secret.queries';
import { MIN_JWT_SECRET_LENGTH } from './jwt';

/** The row of service_secret that holds the signing key of access tokens when JWT_SECRET is unset. */
export const JWT_SECRET_NAME = 'jwt-signing-key';

/**
 * The signing key of this deployment's access tokens: JWT_SECRET when set; otherwise the service's own,
 * 32 random bytes that the first process to start writes to the database (table service_secret) and
 * every process of the deployment reads: the API, the workers, several API processes, and the same one
 * after a restart. No secret published anywhere (the repository, the docs) ever signs a token.
 */
export async function resolveJwtSecret(config: AppConfig, db: SqlRunner): Promise<string> {
  if (config.JWT_SECRET) return config.JWT_SECRET;
  try {
    await insertServiceSecret(db, { name: JWT_SECRET_NAME, value: randomBytes(32).toString('base64url') });
    const [row] = await selectServiceSecret(db, { name: JWT_SECRET_NAME });
    if (!row || row.value.length < MIN_JWT_SECRET_LENGTH) throw new Error('the stored signing key is missing or too short');
    return row.value;
  } catch (err) {
    if ((err as { code?: string }).code === '42P01') {
      throw new Error('JWT_SECRET is not set and the database has no service_secret table yet: run `npm run migrate` (or `npm start`, which migrates) first');
    }
    throw err;
  }
}
