import { z } from 'zod';
import type { LabelFormat } from '../../../shared/labels/label-data';
import type { Response } from 'express';
import { defineRoute, type RouteDef } from '../http/route';
import { idParam, slotCrcParam } from '../http/validation';
import { printLicensePlate, type PrintedPlate } from '../use-cases/license-plates/license-plate.use-case';

const tags = ['License plates'];
// The shipper at the back of the wall prints; Managers and Admins may reprint from the hub.
const access = ['Sorter'] as const;

const crcParam = slotCrcParam.describe('The slot crc (any case), or its shipper (B-) or sorter (A-) barcode as scanned');

const CONTENT_TYPES: Record<LabelFormat, string> = { zpl: 'text/plain; charset=utf-8', pdf: 'application/pdf' };

function sendLabel(res: Response, format: LabelFormat, plate: PrintedPlate): void {
  res
    .status(200)
    .set('Content-Type', CONTENT_TYPES[format])
    .set('Content-Disposition', `inline; filename="${plate.plateNumber}.${format}"`)
    .set('X-License-Plate', plate.plateNumber)
    .end(plate.document);
}

const FORMATS = {
  zpl: { name: 'Zpl', what: 'ZPL II (text/plain, 203 dpi, 4×6 inch; the plate as a native ^BC Code 128)' },
  pdf: { name: 'Pdf', what: 'a 4×6 inch PDF (application/pdf; the plate as a Code 128 image)' },
} as const;

const description =
  'The label carries the license plate number (as Code 128 and as text), the order id, the ship-to address, the wall name, the ' +
  "slot crc and the order's unit count. The plate number is made on the order's first print and is the same on every reprint; it " +
  'is also sent as the X-License-Plate header. Every print is written to the audit log (kind license-plate; licensePlates=true). ' +
  'When a slot completes, the labels worker renders both documents ahead; a print answers that document while the data it shows is unchanged.';

export const licensePlatesRoutes: RouteDef[] = (['zpl', 'pdf'] as const).flatMap((format) => [
  defineRoute({
    method: 'post',
    path: `/license-plates/{crc}/${format}`,
    leavesWallViews: true,
    operationId: `Generate${FORMATS[format].name}LicensePlateForCrc`,
    summary: `The license plate of the order in a slot, as ${FORMATS[format].what}`,
    description: `${description} A slot that holds no order → 409 slot-not-complete; an unknown crc → 404.`,
    tags,
    access,
    params: z.object({ crc: crcParam }),
    responseContentType: CONTENT_TYPES[format].split(';')[0],
    errors: ['validation-failed', 'not-found', 'slot-not-complete', 'service-unavailable'],
    handler: ({ res, em, deps, auth, params }) =>
      printLicensePlate(em, deps.labels, auth, { crc: params.crc }, format).then((plate) => sendLabel(res, format, plate)),
  }),
  defineRoute({
    method: 'post',
    path: `/license-plates/orders/{id}/${format}`,
    leavesWallViews: true,
    operationId: `Generate${FORMATS[format].name}LicensePlateForOrder`,
    summary: `The license plate of an order, as ${FORMATS[format].what}`,
    description: `${description} An order in no slot prints '-' for wall and slot. An unknown order → 404.`,
    tags,
    access,
    params: z.object({ id: idParam.describe('Order id') }),
    responseContentType: CONTENT_TYPES[format].split(';')[0],
    errors: ['validation-failed', 'not-found', 'service-unavailable'],
    handler: ({ res, em, deps, auth, params }) =>
      printLicensePlate(em, deps.labels, auth, { orderId: params.id }, format).then((plate) => sendLabel(res, format, plate)),
  }),
]);
