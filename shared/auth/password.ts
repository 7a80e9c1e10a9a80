import bcrypt from 'bcryptjs';

/** Password and PIN hashing. Cost is a setting so tests stay quick; production keeps the default 10. */
export async function hashSecret(secret: string, rounds = 10): Promise<string> {
  return bcrypt.hash(secret, rounds);
}

export async function verifySecret(secret: string, hash: string): Promise<boolean> {
  return bcrypt.compare(secret, hash);
}
