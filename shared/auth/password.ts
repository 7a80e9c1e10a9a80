import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import os from 'node:os';
import bcrypt from 'bcryptjs';

/*
 * Password and PIN hashing with scrypt (node:crypto): it runs on libuv's thread pool, so a sign-in
 * never blocks the event loop that serves scans. Hashes describe themselves:
 *   scrypt$<log2 N>$<r>$<p>$<salt, base64>$<hash, base64>
 * so the cost can change later without invalidating stored hashes. bcrypt hashes ($2a$/$2b$/$2y$) from
 * before are still verified (bcryptjs, pure JavaScript on the event loop: once per account) and
 * replaced at the next successful sign-in (needsRehash).
 */

const PREFIX = 'scrypt';
const BLOCK_SIZE = 8;
const PARALLELISM = 1;
const SALT_BYTES = 16;
const KEY_BYTES = 32;

/** The default cost: N = 2^14, r = 8 (16 MiB, tens of ms on one thread-pool thread). */
export const DEFAULT_HASH_COST = 14;

interface Params {
  logN: number;
  r: number;
  p: number;
}

/*
 * At most one hash per core but one runs at a time: a burst of sign-ins (a shift starting) then uses
 * at most that many cores and leaves the rest to the scans, instead of filling the thread pool.
 */
const MAX_PARALLEL = Math.max(1, os.availableParallelism() - 1);
let running = 0;
const waiting: (() => void)[] = [];

async function limited<T>(fn: () => Promise<T>): Promise<T> {
  if (running >= MAX_PARALLEL) await new Promise<void>((r) => waiting.push(r));
  running++;
  try {
    return await fn();
  } finally {
    running--;
    waiting.shift()?.();
  }
}

function derive(secret: string, salt: Buffer, { logN, r, p }: Params, keyLength: number): Promise<Buffer> {
  const N = 2 ** logN;
  // Node refuses more than 32 MiB unless told: allow what these parameters need (128·N·r) and some.
  const options: ScryptOptions = { N, r, p, maxmem: 256 * N * r + 1024 * 1024 };
  return limited(
    () => new Promise<Buffer>((resolve, reject) => scrypt(secret.normalize('NFC'), salt, keyLength, options, (err, key) => (err ? reject(err) : resolve(key)))),
  );
}

function parse(hash: string): (Params & { salt: Buffer; key: Buffer }) | undefined {
  const parts = hash.split('$');
  if (parts.length !== 6 || parts[0] !== PREFIX) return undefined;
  const [logN, r, p] = parts.slice(1, 4).map(Number);
  if (![logN, r, p].every(Number.isInteger) || logN < 1 || logN > 24 || r < 1 || r > 64 || p < 1 || p > 16) return undefined;
  const salt = Buffer.from(parts[4], 'base64');
  const key = Buffer.from(parts[5], 'base64');
  if (!salt.length || !key.length) return undefined;
  return { logN, r, p, salt, key };
}

function isBcrypt(hash: string): boolean {
  return /^\$2[aby]\$\d\d\$/.test(hash);
}

/** Hashes a password or PIN; `cost` is log2 of scrypt's N (PASSWORD_HASH_ROUNDS). */
export async function hashSecret(secret: string, cost = DEFAULT_HASH_COST): Promise<string> {
  const params = { logN: cost, r: BLOCK_SIZE, p: PARALLELISM };
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(secret, salt, params, KEY_BYTES);
  return [PREFIX, params.logN, params.r, params.p, salt.toString('base64'), key.toString('base64')].join('$');
}

/** True when the secret matches the stored hash (scrypt, or bcrypt from before); false for an unknown format. */
export async function verifySecret(secret: string, hash: string): Promise<boolean> {
  const parsed = parse(hash);
  if (parsed) {
    const key = await derive(secret, parsed.salt, parsed, parsed.key.length);
    return timingSafeEqual(key, parsed.key);
  }
  if (isBcrypt(hash)) return bcrypt.compare(secret, hash);
  return false;
}

/** True when a hash that just verified should be replaced: bcrypt, or scrypt with other parameters. */
export function needsRehash(hash: string, cost = DEFAULT_HASH_COST): boolean {
  const parsed = parse(hash);
  return !parsed || parsed.logN !== cost || parsed.r !== BLOCK_SIZE || parsed.p !== PARALLELISM || parsed.key.length !== KEY_BYTES;
}
