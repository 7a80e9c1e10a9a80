import { canonicalTimeZone, isIanaTimeZone } from '../../shared/domain/time-zone';

describe('warehouse time zones (IANA names)', () => {
  it('accepts IANA names and their current aliases, in any case', () => {
    for (const ok of ['America/Chicago', 'asia/kolkata', 'Asia/Kolkata', 'Europe/Kyiv', 'UTC', 'Etc/GMT+5', 'America/Argentina/Buenos_Aires']) {
      expect(isIanaTimeZone(ok)).toBe(true);
    }
    expect(canonicalTimeZone('america/chicago')).toBe('America/Chicago');
    expect(canonicalTimeZone('Asia/Kolkata')).toBe('Asia/Kolkata');
  });

  it('refuses offsets, abbreviations and made-up names', () => {
    for (const bad of ['+05:00', '-0300', 'CEST', 'Mars/Olympus', '', 'America/Chicago/', '../etc/passwd']) expect(isIanaTimeZone(bad)).toBe(false);
    expect(() => canonicalTimeZone('Mars/Olympus')).toThrow();
  });
});
