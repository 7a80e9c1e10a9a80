import { crc32Hex } from '../../shared/domain/crc';

describe('crc32Hex', () => {
  it.each([
    ['123456789', 'CBF43926'],
    ['', '00000000'],
    ['The quick brown fox jumps over the lazy dog', '414FA339'],
    // Cross-checked with python3 zlib.crc32 when written.
    ['0x1A2B3C4D', '5A41198A'],
    ['0x00000001', '122FE97F'],
    ['0xDEADBEEF', '476CBA72'],
    ['dummy-slot-7', '32EA6967'],
    // Multi-byte UTF-8: "café-ü" is 8 bytes, not 6 characters.
    ['caf\u00e9-\u00fc', '4469B93A'],
  ])('crc32Hex(%j) = %s', (input, expected) => {
    expect(crc32Hex(input)).toBe(expected);
  });

  it('always answers 8 upper-case hex digits', () => {
    for (const input of ['a', 'ab', 'abc', '0x0', 'x'.repeat(1000)]) {
      expect(crc32Hex(input)).toMatch(/^[0-9A-F]{8}$/);
    }
  });
});
