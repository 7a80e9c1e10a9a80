import bcrypt from 'bcryptjs';
import { hashSecret, needsRehash, verifySecret } from '../../shared/auth/password';

describe('password hashing (scrypt)', () => {
  it('writes a self-describing hash: scrypt$logN$r$p$salt$hash', async () => {
    const hash = await hashSecret('correct horse', 5);
    const parts = hash.split('$');
    expect(parts).toHaveLength(6);
    expect(parts.slice(0, 4)).toEqual(['scrypt', '5', '8', '1']);
    expect(Buffer.from(parts[4], 'base64')).toHaveLength(16);
    expect(Buffer.from(parts[5], 'base64')).toHaveLength(32);
    expect(hash).not.toContain('correct horse');
  });

  it('salts every hash and verifies the right secret only', async () => {
    const a = await hashSecret('s3cret', 4);
    const b = await hashSecret('s3cret', 4);
    expect(a).not.toBe(b);
    expect(await verifySecret('s3cret', a)).toBe(true);
    expect(await verifySecret('s3cret', b)).toBe(true);
    expect(await verifySecret('S3cret', a)).toBe(false);
    expect(await verifySecret('', a)).toBe(false);
  });

  it('verifies with the parameters stored in the hash, not the current setting', async () => {
    const old = await hashSecret('pin-1234', 6);
    expect(await verifySecret('pin-1234', old)).toBe(true);
    expect(needsRehash(old, 6)).toBe(false);
    expect(needsRehash(old, 7)).toBe(true);
  });

  it('still verifies bcrypt hashes from before, and asks for them to be replaced', async () => {
    const legacy = await bcrypt.hash('old-password', 4);
    expect(await verifySecret('old-password', legacy)).toBe(true);
    expect(await verifySecret('other', legacy)).toBe(false);
    expect(needsRehash(legacy, 4)).toBe(true);
  });

  it('refuses malformed or unknown hashes instead of throwing', async () => {
    for (const bad of ['', 'plain', 'scrypt$14$8$1$$', 'scrypt$99$8$1$c2FsdA==$aGFzaA==', 'scrypt$x$8$1$c2FsdA==$aGFzaA==', 'argon2$...']) {
      expect(await verifySecret('x', bad)).toBe(false);
      expect(needsRehash(bad, 4)).toBe(true);
    }
  });
});
