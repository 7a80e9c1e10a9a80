import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../../../shared/errors/app-error';
import type { LabelFormat, LicensePlateLabel } from '../../../../shared/labels/label-data';
import type { LabelRenderer } from '../../../../shared/labels/render-pool';
import { LABEL_DATA_CTES, NEW_PLATE_NUMBER_SQL, labelHash, toLabel, type LabelRow } from '../../../../shared/labels/label-sql';

export type PlateTarget = { crc: string } | { orderId: number };

interface PrintRow extends LabelRow {
  print_count: number;
  stored_hash: string | null;
  stored_body: Buffer | null;
}

/*
 * One statement prints: it reads the order and its slot, makes the plate number on the first print or
 * counts the reprint (the row lock of the upsert orders simultaneous prints of one order), and writes
 * the audit row (kind license-plate) with an event id derived from the order and the print count, so
 * one print is one row, and notes the format as one the client prints (label_print_format: the labels
 * worker renders ahead in those). It also reads the document rendered ahead, if any. A single
 * statement commits all of it or nothing, in one round trip.
 * nextval() runs for reprints too: plate numbers are unique, not gap-free.
 */
const PRINT_SQL = `
with ${LABEL_DATA_CTES}, p as (
  insert into license_plate (client_id, order_id, plate_number, print_count, last_printed_at)
  select :clientId, o.id, ${NEW_PLATE_NUMBER_SQL}, 1, now() from o
  on conflict (client_id, order_id) do update set print_count = license_plate.print_count + 1, last_printed_at = now()
  returning plate_number, print_count
), a as (
  insert into audit_log (client_id, event_id, type, kind, wall_id, user_id, order_id, crc, is_license_plate, message, data)
  select :clientId, md5('license-plate:' || cast(:clientId as text) || ':' || cast(:orderId as text) || ':' || p.print_count)::uuid,
         'license-plate.generated', 'license-plate', s.wall_id, :userId, :orderId, s.crc, true,
         'License plate ' || p.plate_number || ' (' || upper(cast(:format as text)) || ') printed for order ' || cast(:orderId as text)
           || coalesce(' from slot ' || s.position || ' (' || s.crc || ') of wall ''' || s.wall_name || '''', '')
           || coalesce(' by ' || (select trim(e.first_name || ' ' || e.last_name) from employee e where e.id = :userId), '')
           || case when p.print_count > 1 then ' (reprint ' || (p.print_count - 1) || ')' else '' end || '.',
         jsonb_build_object('plateNumber', p.plate_number, 'format', cast(:format as text), 'printCount', p.print_count)
  from p left join s on true
  returning id
), printed_format as (
  -- The formats a client prints are the ones the labels worker renders ahead (at most one write an hour).
  insert into label_print_format (client_id, format, last_printed_at) select cast(:clientId as int), cast(:format as text), now() from p
  on conflict (client_id, format) do update set last_printed_at = excluded.last_printed_at
   where label_print_format.last_printed_at < now() - interval '1 hour'
)
select o.ship_to, o.units, p.plate_number, p.print_count, s.crc, s.position, s.wall_name, d.label_hash as stored_hash, d.body as stored_body
from o cross join p left join s on true
left join license_plate_document d on d.client_id = :clientId and d.order_id = :orderId and d.format = :format`;

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
  const knex = em.getKnex();
  let orderId: number;
  if ('crc' in target) {
    const slot = (
      (await knex.raw(
        `select sb.order_id, sb.position, w.name as wall_name from sort_box sb join wall w on w.id = sb.wall_id where sb.client_id = ? and sb.crc = ?`,
        [clientId, target.crc],
      )) as { rows: { order_id: number | null; position: number; wall_name: string }[] }
    ).rows[0];
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
  const row = ((await knex.raw(PRINT_SQL, { clientId, orderId, userId, format })) as { rows: PrintRow[] }).rows[0];
  if (!row) throw new AppError('not-found', `Your company has no order ${orderId}.`);
  const label = toLabel(row, orderId);
  return { label, stored: row.stored_body && row.stored_hash === labelHash(label) ? row.stored_body : null };
}
