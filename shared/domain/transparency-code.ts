/**
 * The three forms of a marketplace transparency code (docs/api.md §9). A scanner may add surrounding
 * white space, so codes are trimmed first; anything else is taken as scanned.
 */
const AMAZON = /^(AZ|ZA):[A-Z0-9]{26}$/;
// A GS1 element string, e.g. (01)00012345678905(21)ABCDEFGHIJ12345678: digits, letters, parentheses.
const SGTIN = /^[A-Za-z0-9()]{38}$/;
const BRAND_SERIAL = /^[A-Za-z0-9-]{7,22}$/;

export type TransparencyCodeKind = 'amazon' | 'sgtin' | 'brand-serial';

export type TransparencyCodeCheck = { ok: true; code: string; kind: TransparencyCodeKind } | { ok: false; reason: string };

export function checkTransparencyCode(raw: string): TransparencyCodeCheck {
  const code = raw.trim();
  // A code that starts like an Amazon code must be one: 'AZ:' plus a short tail is a bad scan, not a brand serial.
  if (/^(AZ|ZA):/i.test(code)) {
    return AMAZON.test(code)
      ? { ok: true, code, kind: 'amazon' }
      : { ok: false, reason: `'${code}' starts like an Amazon code but is not AZ: or ZA: followed by exactly 26 upper-case letters or digits` };
  }
  if (code.length === 38) {
    return SGTIN.test(code)
      ? { ok: true, code, kind: 'sgtin' }
      : { ok: false, reason: `'${code}' has the length of an SGTIN (38) but holds characters other than letters, digits and parentheses` };
  }
  if (BRAND_SERIAL.test(code)) return { ok: true, code, kind: 'brand-serial' };
  return {
    ok: false,
    reason:
      `'${code}' is neither an Amazon code (AZ: or ZA: plus 26 upper-case letters or digits), a 38-character SGTIN, ` +
      'nor a brand serial of 7 to 22 letters, digits or hyphens',
  };
}
