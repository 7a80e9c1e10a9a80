/**
 * IANA time zone names a warehouse may carry. Only the canonical names Node's ICU lists (plus UTC):
 * PostgreSQL buckets the statistics with the same name, and both know these; offsets such as "+05:00"
 * and abbreviations are refused.
 */
const ZONES = new Map<string, string>(
  [...Intl.supportedValuesOf('timeZone'), 'UTC', 'Etc/UTC'].map((z) => [z.toLowerCase(), z]),
);

export function isIanaTimeZone(name: string): boolean {
  return ZONES.has(name.trim().toLowerCase());
}

/** The canonical spelling of a valid zone name (names match case-insensitively). */
export function canonicalTimeZone(name: string): string {
  const zone = ZONES.get(name.trim().toLowerCase());
  if (!zone) throw new Error(`not an IANA time zone: ${name}`);
  return zone;
}
