import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../../../shared/errors/app-error';
import type { LabelFormat, LicensePlateLabel } from '../../../../shared/labels/label-data';
import type { LabelRenderer } from '../../../../shared/labels/render-pool';
import { emSql } from '../../../../shared/db/orm-sql';
import { currentStoredDocument, toLabel } from '../../../../shared/labels/label-hash';
import { printPlate } from '../../../../shared/labels/label-print.queries';
import { slotToPrint } from './license-plate.queries';

export type PlateTarget = { crc: string } | { orderId: number };

/** A print: what the label shows, and the document the labels worker rendered ahead when it is current. */
export interface PreparedPlate {
  label: LicensePlateLabel;
  /** The stored document, only when it was rendered from exactly this label's data (labelHash). */
  stored: Buffer | null;
}

/** A printed license plate: its number and the document (ZPL text or PDF). */
export interface PrintedPlate {
  plateNumber: string;
  document: Buffer | string;
}

/**
 * POST /license-plates/...: a print. The labels worker renders ahead when a slot completes; that document
 * is answered while it is current, else the label is rendered now (off the event loop).
 */
export async function printLicensePlate(
  em: EntityManager,
  labels: Pick<LabelRenderer, 'render'>,
  caller: { clientId: number; employeeId: number },
  target: PlateTarget,
  format: LabelFormat,
): Promise<PrintedPlate> {
  const { label, stored } = await prepareLicensePlate(em, caller.clientId, caller.employeeId, target, format);
  return { plateNumber: label.plateNumber, document: stored ?? (await labels.render(format, label)) };
}

/**
 * What a license plate prints, and the order's plate number: made on its first print, the same on
 * every reprint; every print audited (docs/api.md §9).
 */
async function prepareLicensePlate(em: EntityManager, clientId: number, userId: number, target: PlateTarget, format: LabelFormat): Promise<PreparedPlate> {
  const db = emSql(em);
  let orderId: number;
  if ('crc' in target) {
    const [slot] = await slotToPrint(db, { clientId, crc: target.crc });
    if (!slot) throw new AppError('not-found', `Your company has no slot with crc ${target.crc}.`);
    if (slot.order_id === null) {
      throw new AppError(
        'slot-not-complete',
        `Slot ${target.crc} (position ${slot.position} of wall '${slot.wall_name}') holds no order, so there is nothing to label: ` +
          'check that you scanned the right slot, or print the label by order id (POST /license-plates/orders/{id}/...).',
      );
    }
    orderId = slot.order_id;
  } else {
    orderId = target.orderId;
  }
  const [row] = await printPlate(db, { clientId, orderId, userId, format });
  if (!row) throw new AppError('not-found', `Your company has no order ${orderId}.`);
  const label = toLabel(row, orderId);
  return { label, stored: currentStoredDocument(row, label) };
}
