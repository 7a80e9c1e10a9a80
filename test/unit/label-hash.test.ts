import type { LicensePlateLabel } from '../../shared/labels/label-data';
import { labelHash } from '../../shared/labels/label-hash';

const label: LicensePlateLabel = {
  plateNumber: 'LP0000000001',
  orderId: 7,
  shipTo: { name: 'Zoë Doe', street1: '12 Elm St', city: 'Portland', state: 'OR', postalCode: '97201', country: 'US' },
  wallName: 'Jackson St',
  crc: '0A1B2C3D',
  slotNumber: 4,
  units: 5,
};

describe('labelHash: whether a label rendered ahead is still current', () => {
  it('does not depend on the order of keys (jsonb returns its own)', () => {
    const shuffled = { units: 5, slotNumber: 4, crc: '0A1B2C3D', wallName: 'Jackson St', shipTo: { country: 'US', postalCode: '97201', state: 'OR', city: 'Portland', street1: '12 Elm St', name: 'Zoë Doe' }, orderId: 7, plateNumber: 'LP0000000001' };
    expect(labelHash(shuffled as LicensePlateLabel)).toBe(labelHash(label));
  });

  it('changes with anything the label prints', () => {
    const h = labelHash(label);
    for (const other of [
      { ...label, plateNumber: 'LP0000000002' },
      { ...label, units: 6 },
      { ...label, crc: null },
      { ...label, slotNumber: 5 },
      { ...label, wallName: null },
      { ...label, shipTo: { ...label.shipTo, street2: 'Suite 4' } },
    ]) {
      expect(labelHash(other)).not.toBe(h);
    }
  });
});
