import { SORTER_COLORS, colorHex, firstFreeColor, isSorterColor } from '../../shared/domain/colors';

describe('sorter colors', () => {
  it('keeps the documented palette order and hex values', () => {
    expect(SORTER_COLORS).toEqual(['Red', 'Blue', 'Yellow', 'Green', 'Magenta', 'Cyan']);
    expect(SORTER_COLORS.map(colorHex)).toEqual(['#E53935', '#1E88E5', '#FDD835', '#43A047', '#D81B60', '#00ACC1']);
  });

  it('firstFreeColor takes the first palette color not held', () => {
    expect(firstFreeColor([])).toBe('Red');
    expect(firstFreeColor(['Red'])).toBe('Blue');
    expect(firstFreeColor(['Blue'])).toBe('Red');
    expect(firstFreeColor(['Red', 'Yellow', 'Blue'])).toBe('Green');
    expect(firstFreeColor(new Set(['Red', 'Blue', 'Yellow', 'Green', 'Magenta']))).toBe('Cyan');
    expect(firstFreeColor(['Cyan', 'Red'])).toBe('Blue');
  });

  it('firstFreeColor ignores unknown names and repeats', () => {
    expect(firstFreeColor(['Purple', 'Red', 'Red'])).toBe('Blue');
  });

  it('firstFreeColor answers null when all six are held', () => {
    expect(firstFreeColor([...SORTER_COLORS])).toBeNull();
    expect(firstFreeColor([...SORTER_COLORS].reverse())).toBeNull();
  });

  it('isSorterColor', () => {
    expect(isSorterColor('Magenta')).toBe(true);
    expect(isSorterColor('red')).toBe(false);
    expect(isSorterColor('Purple')).toBe(false);
  });
});
