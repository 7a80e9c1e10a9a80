/**
 * IANA time zone names a warehouse may carry: a name Node's ICU knows (its canonical list or an alias
 * such as Asia/Kolkata, which ICU still lists as Asia/Calcutta), spelled like a zone name; offsets
 * such as "+05:00" are refused. PostgreSQL buckets the statistics with the same name (it knows every
 * zone of ICU's list and the current aliases, case-insensitively).
 */
const CANONICAL = new Map<string, string>([...Intl.supportedValuesOf('timeZone'), 'UTC'].map((z) => [z.toLowerCase(), z]));
const NAME = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/;

export function isIanaTimeZone(name: string): boolean {
  const z = name.trim();
  if (!NAME.test(z)) return false;
  if (CANONICAL.has(z.toLowerCase())) return true;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: z });
    return true;
  } catch {
    return false;
  }
}

/** The spelling to store: ICU's for a name it lists (names match case-insensitively), else the name as given. */
export function canonicalTimeZone(name: string): string {
  if (!isIanaTimeZone(name)) throw new Error(`not an IANA time zone: ${name}`);
  return CANONICAL.get(name.trim().toLowerCase()) ?? name.trim();
}
