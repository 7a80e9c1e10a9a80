import { addressLines } from '../../shared/labels/label-data';
import { renderZpl } from '../../shared/labels/render-zpl';

const label = {
  plateNumber: 'LP0000000001',
  orderId: 42,
  shipTo: { name: 'A^B~C_D', street1: 'Line\nbreak', street2: null, city: 'Köln', state: null, postalCode: '50667', country: 'DE' },
  wallName: 'North ^XZ wall',
  crc: '0A1B2C3D',
  slotNumber: 12,
  units: 7,
};

describe('renderZpl', () => {
  it('is one 4×6 inch label at 203 dpi with the plate as a native Code 128', () => {
    const zpl = renderZpl(label);
    expect(zpl.match(/\^XA/g)).toHaveLength(1);
    expect(zpl.match(/\^XZ/g)).toHaveLength(1);
    expect(zpl.trimEnd().endsWith('^XZ')).toBe(true);
    expect(zpl).toContain('^CI28');
    expect(zpl).toContain('^PW812\n^LL1218');
    expect(zpl).toContain('^BCN,220,Y,N,N,A^FH^FDLP0000000001^FS');
  });

  it('escapes ^, ~ and _ in data with ^FH hex and turns control characters into spaces', () => {
    const fields = [...renderZpl(label).matchAll(/\^FD(.*?)\^FS/g)].map((m) => m[1]);
    expect(fields).toContain('A_5EB_7EC_5FD');
    expect(fields).toContain('Line break');
    expect(fields).toContain('WALL North _5EXZ wall');
    expect(fields).toContain('Köln, 50667');
    expect(fields).toContain('ORDER 42');
    expect(fields).toContain('SLOT 12 (0A1B2C3D)');
    expect(fields).toContain('UNITS 7');
  });

  it('prints dashes for an order in no slot', () => {
    const zpl = renderZpl({ ...label, wallName: null, crc: null, slotNumber: null });
    expect(zpl).toContain('^FDWALL -^FS');
    expect(zpl).toContain('^FDSLOT -^FS');
  });
});

describe('addressLines', () => {
  it('leaves out empty parts', () => {
    expect(addressLines({ name: 'N', street1: 'S', street2: '  ', city: 'C', state: 'ST', postalCode: 'P', country: 'US' })).toEqual(['N', 'S', 'C, ST P', 'US']);
  });
});
