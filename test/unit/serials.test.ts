import { decide } from '../../machines/decide';
import { sortBoxItemMachine, type SerialCheck } from '../../machines/sort-box-item.machine';
import { serialOf, serialProblem } from '../../shared/domain/serials';

describe('serial numbers (docs/api.md §7 "Serial numbers")', () => {
  it('trims a serial; blanks are no serial', () => {
    expect(serialOf('  SN-1 \t')).toBe('SN-1');
    expect(serialOf('   ')).toBeNull();
    expect(serialOf(null)).toBeNull();
    expect(serialOf(undefined)).toBeNull();
  });

  it('accepts 1 to 64 printable ASCII characters without spaces, and says why it refuses the rest', () => {
    for (const ok of ['X', 'SN-0001', 'a'.repeat(64), '!~#$%&()*+,./:;<=>?@[]^_`{|}', '1A2B3C4D']) expect(serialProblem(ok)).toBeNull();
    expect(serialProblem('a'.repeat(65))).toContain('65 characters long');
    expect(serialProblem('SN 1')).toContain('holds a space');
    expect(serialProblem('SN\u00e91')).toContain('other than printable ASCII');
    expect(serialProblem('SN\u00071')).toContain('other than printable ASCII');
    expect(serialProblem('A-1A2B3C4D')).toContain('slot barcode');
    expect(serialProblem('b-1a2b3c4d')).toContain('slot barcode');
    expect(serialProblem('sku-a', 'SKU-A')).toContain('product barcode');
    expect(serialProblem('SN-1', 'SKU-A')).toBeNull();
  });

  it('the item machine confirms only with an accepted serial (or none needed), units first', () => {
    const confirm = (serial: SerialCheck | undefined, units = 1, remainingUnits = 3) =>
      decide(sortBoxItemMachine, 'PendingConfirmation', {}, { type: 'CONFIRM', units, remainingUnits, serial });
    expect(confirm(undefined)).toMatchObject({ ok: true, value: 'Confirmed', emits: ['sort-box-item.confirmed'] });
    expect(confirm('none')).toMatchObject({ ok: true, value: 'Confirmed' });
    expect(confirm('accepted')).toMatchObject({ ok: true, value: 'Confirmed' });
    expect(confirm('missing')).toEqual({ ok: false, code: 'serial-required' });
    expect(confirm('malformed')).toEqual({ ok: false, code: 'serial-invalid' });
    expect(confirm('unexpected')).toEqual({ ok: false, code: 'serial-not-required' });
    expect(confirm('several-units', 2)).toEqual({ ok: false, code: 'serial-single-unit' });
    expect(confirm('taken')).toEqual({ ok: false, code: 'serial-already-sorted' });
    expect(confirm('missing', 5)).toMatchObject({ ok: false, code: 'units-exceed-remaining' });
    // A finished item answers with its state, whatever the serial.
    expect(decide(sortBoxItemMachine, 'Confirmed', {}, { type: 'CONFIRM', units: 1, remainingUnits: 1, serial: 'taken' })).toMatchObject({ ok: false, code: 'item-already-confirmed' });
  });
});
