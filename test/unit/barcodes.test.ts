import { parseSlotBarcode, shipperBarcode, sorterBarcode } from '../../shared/domain/barcodes';

describe('parseSlotBarcode', () => {
  it.each([
    ['5A41198A', { kind: 'crc', crc: '5A41198A' }],
    ['5a41198a', { kind: 'crc', crc: '5A41198A' }],
    ['A-5A41198A', { kind: 'sorter', crc: '5A41198A' }],
    ['a-5a41198a', { kind: 'sorter', crc: '5A41198A' }],
    ['B-5A41198A', { kind: 'shipper', crc: '5A41198A' }],
    ['b-00000000', { kind: 'shipper', crc: '00000000' }],
    ['  A-CBF43926\n', { kind: 'sorter', crc: 'CBF43926' }],
    ['\t414fa339 ', { kind: 'crc', crc: '414FA339' }],
  ])('recognises %j', (input, expected) => {
    expect(parseSlotBarcode(input)).toEqual(expected);
  });

  it.each([
    '',
    '   ',
    '5A41198',
    '5A41198AB',
    'G0000000',
    'C-5A41198A',
    'A5A41198A',
    'A_5A41198A',
    'A- 5A41198A',
    'A--5A41198A',
    '0x5A41198A',
    '5A41 198A',
    'AB-5A41198A',
    '012345678901',
  ])('rejects %j', (input) => {
    expect(parseSlotBarcode(input)).toBeNull();
  });
});

describe('sorterBarcode / shipperBarcode', () => {
  it('prefix the crc', () => {
    expect(sorterBarcode('5A41198A')).toBe('A-5A41198A');
    expect(shipperBarcode('5A41198A')).toBe('B-5A41198A');
  });

  it('round-trip through parseSlotBarcode', () => {
    expect(parseSlotBarcode(sorterBarcode('CBF43926'))).toEqual({ kind: 'sorter', crc: 'CBF43926' });
    expect(parseSlotBarcode(shipperBarcode('CBF43926'))).toEqual({ kind: 'shipper', crc: 'CBF43926' });
  });
});
