import { checkTransparencyCode } from '../../shared/domain/transparency-code';

describe('checkTransparencyCode', () => {
  it.each([
    [`AZ:${'0'.repeat(26)}`, 'amazon'],
    [`ZA:${'Z9'.repeat(13)}`, 'amazon'],
    ['(01)00012345678905(21)ABCDEFGHIJ123456', 'sgtin'],
    ['SERIAL1', 'brand-serial'],
    ['A-B-C-D-E-F-G-H-I-J-KL', 'brand-serial'],
  ])('accepts %s as %s', (code, kind) => {
    expect('(01)00012345678905(21)ABCDEFGHIJ123456').toHaveLength(38);
    expect(checkTransparencyCode(` ${code}\n`)).toEqual({ ok: true, code, kind });
  });

  it.each([
    `AZ:${'0'.repeat(25)}`,
    `AZ:${'0'.repeat(27)}`,
    `az:${'0'.repeat(26)}`,
    `AZ:${'a'.repeat(26)}`,
    'AZ:SHORT1',
    '(01)00012345678905(21)ABCDEFG IJ123456',
    'SIX666',
    'X'.repeat(23),
    'ABC_1234',
    '',
  ])('refuses %j with a reason', (code) => {
    const r = checkTransparencyCode(code);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toContain(`'${code.trim()}'`);
  });
});
