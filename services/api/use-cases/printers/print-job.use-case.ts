import type { EntityManager } from '@mikro-orm/postgresql';
import { emSql } from '../../../../shared/db/orm-sql';
import { shipperBarcode } from '../../../../shared/domain/barcodes';
import { AppError } from '../../../../shared/errors/app-error';
import type { LabelRenderer } from '../../../../shared/labels/render-pool';
import { insertPrintJob } from '../../../../shared/labels/print-job.queries';
import { renderTestZpl } from '../../../../shared/labels/render-zpl';
import { printLicensePlate } from '../license-plates/license-plate.use-case';
import { completeSlotDto, toPrintJobDto, type CompleteSlotDto, type PrintJobDto } from './printer.dto';
import { completeSlots, getPrinter, getPrintJob, slotForPrint } from './printers.queries';
import { assertWallExists } from '../../commands/wall-resolver';

/**
 * POST /license-plates/{crc}/print: the slot's license plate as a print job for its wall's printer,
 * answered at once (202); the labels worker sends it. The job holds exactly the bytes POST
 * /license-plates/{crc}/zpl answers (the same print: plate number, audit row, document rendered ahead).
 */
export async function printSlotPlate(
  em: EntityManager,
  labels: Pick<LabelRenderer, 'render'>,
  caller: { clientId: number; employeeId: number },
  crc: string,
): Promise<PrintJobDto> {
  const db = emSql(em);
  const [slot] = await slotForPrint(db, { clientId: caller.clientId, crc });
  if (!slot) throw new AppError('not-found', `Your company has no slot with crc ${crc}: check that you scanned a slot's B- barcode.`);
  if (slot.order_id === null) {
    throw new AppError(
      'slot-not-complete',
      `Slot ${slot.position} (${slot.crc}) of wall '${slot.wall_name}' holds no order, so there is no label to print: check that you scanned the right slot.`,
    );
  }
  if (slot.printer_id === null) {
    throw new AppError(
      'no-printer',
      `Wall '${slot.wall_name}' has no label printer: print the PDF instead (POST /license-plates/${slot.crc}/pdf), or ask a Manager to name the wall's printer (PATCH /walls/{id} with printerId).`,
    );
  }
  // The slot is found and checked above: the print goes by its order, without looking the slot up again.
  const plate = await printLicensePlate(em, labels, caller, { orderId: slot.order_id }, 'zpl');
  const body = Buffer.isBuffer(plate.document) ? plate.document : Buffer.from(plate.document, 'utf8');
  const [job] = await insertPrintJob(db, {
    clientId: caller.clientId,
    printerId: slot.printer_id,
    wallId: slot.wall_id,
    orderId: slot.order_id,
    crc: slot.crc,
    plateNumber: plate.plateNumber,
    source: 'request',
    eventId: null,
    userId: caller.employeeId,
    body,
  });
  return toPrintJobDto(job!);
}

/**
 * POST /printers/{id}/test: a test label for the printer as a print job (202), sent by the labels
 * worker like any other, so its state shows whether the printer answers. No order, no plate, no audit row.
 */
export async function printTestLabel(em: EntityManager, caller: { clientId: number; employeeId: number }, printerId: number): Promise<PrintJobDto> {
  const db = emSql(em);
  const [printer] = await getPrinter(db, { clientId: caller.clientId, id: printerId });
  if (!printer) throw new AppError('not-found', `Your company has no printer ${printerId}.`);
  const at = new Date();
  const code = `TEST-${printer.id}-${at.getTime().toString(36).toUpperCase()}`;
  const zpl = renderTestZpl({ printerName: printer.name, address: `${printer.host}:${printer.port}`, at, code });
  const [job] = await insertPrintJob(db, {
    clientId: caller.clientId,
    printerId: printer.id,
    wallId: null,
    orderId: null,
    crc: null,
    plateNumber: null,
    source: 'test',
    eventId: null,
    userId: caller.employeeId,
    body: Buffer.from(zpl, 'utf8'),
  });
  return toPrintJobDto(job!);
}

/** GET /print-jobs/{id}. */
export async function printJob(em: EntityManager, clientId: number, id: number): Promise<PrintJobDto> {
  const [row] = await getPrintJob(emSql(em), { clientId, id });
  if (!row) throw new AppError('not-found', `Your company has no print job ${id}.`);
  return toPrintJobDto(row);
}

/** GET /walls/{id}/complete-slots: what waits for the shipper, oldest first. */
export async function wallCompleteSlots(em: EntityManager, clientId: number, wallId: number): Promise<CompleteSlotDto[]> {
  await assertWallExists(em, clientId, wallId);
  const now = Date.now();
  return (await completeSlots(emSql(em), { clientId, wallId })).map((r) =>
    completeSlotDto.parse({
      position: r.position,
      crc: r.crc,
      shipperBarcode: shipperBarcode(r.crc),
      orderId: r.order_id,
      units: r.units,
      completedAt: r.completed_at ? new Date(r.completed_at).toISOString() : null,
      waitingSeconds: r.completed_at ? Math.max(0, Math.floor((now - new Date(r.completed_at).getTime()) / 1000)) : 0,
    }),
  );
}
