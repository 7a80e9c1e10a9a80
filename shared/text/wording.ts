// Details are read by people on the floor: counts with the right plural, never "slot(s)".

/** "1 slot", "2 slots", "0 slots"; irregular plurals given explicitly. */
export function count(n: number, singular: string, plural = `${singular}s`): string {
  return `${n} ${n === 1 ? singular : plural}`;
}

/** "is" or "are" for n things. */
export function isAre(n: number): string {
  return n === 1 ? 'is' : 'are';
}
