// Sorter colors in palette order: a new session takes the first color no connected session of the
// wall holds (docs/api.md §6), so the order here is part of the API.

export const SORTER_COLORS = ['Red', 'Blue', 'Yellow', 'Green', 'Magenta', 'Cyan'] as const;

export type SorterColor = (typeof SORTER_COLORS)[number];

const COLOR_HEX: Readonly<Record<SorterColor, string>> = {
  Red: '#E53935',
  Blue: '#1E88E5',
  Yellow: '#FDD835',
  Green: '#43A047',
  Magenta: '#D81B60',
  Cyan: '#00ACC1',
};

export function colorHex(color: SorterColor): string {
  return COLOR_HEX[color];
}

export function isSorterColor(value: string): value is SorterColor {
  return (SORTER_COLORS as readonly string[]).includes(value);
}

/** First palette color not in `taken`; null when all six are held (a wall has at most 6 sorters). */
export function firstFreeColor(taken: Iterable<string>): SorterColor | null {
  const held = new Set(taken);
  return SORTER_COLORS.find((color) => !held.has(color)) ?? null;
}
