import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ShipTo } from '../../../../shared/db/entities';
import { AppError } from '../../../../shared/errors/app-error';
import type { LabelFormat, LicensePlateLabel } from '../../../../workers/labels/label-data';

export type PlateTarget = { crc: string } | { orderId: number };

// Fixed namespace of the name-based (v5) ids of license-plate audit rows.
const AUDIT_NAMESPACE = Buffer.from('6f1d8c2e4b7a4e0f9a3b5c7d9e1f2a3b', 'hex');

/** A name-based UUID (RFC 9562 v5): the same print of the same plate always gets the same audit event id. */
function uuidV5(name: string): string {
  const h = createHash('sha1').update(AUDIT_NAMESPACE).update(name, 'utf8').digest();
  h[6] = (h[6]! & 0x0f) | 0x50;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

interface SlotRow {
  order_id: number | null;
  crc: string;
  wall_id: number;
  wall_name: string;
  position: number;
}

/**
 * Finds what a license plate prints and gives the order its plate number: made on the first print,
 * the same on every reprint. The audit row (kind license-plate) commits with the number, its event id
 * derived from the order and the print count, so a print is logged exactly once.
 */
export async function prepareLicensePlate(em: EntityManager, clientId: number, userId: number, target: PlateTarget, format: LabelFormat): Promise<LicensePlateLabel> {
  return em.transactional(async (tx) => {
    let slot: SlotRow | undefined;
    let orderId: number;
    const slotSql = `select sb.order_id, sb.crc, sb.position, w.id as wall_id, w.name as wall_name
                     from sort_box sb join wall w on w.id = sb.wall_id where sb.client_id = ? and `;
    if ('crc' in target) {
      slot = ((await tx.execute(`${slotSql} sb.crc = ?`, [clientId, target.crc])) as SlotRow[])[0];
      if (!slot) throw new AppError('not-found', `Your company has no slot with crc ${target.crc}.`);
      if (slot.order_id === null) {
        throw new AppError(
          'slot-not-complete',
          `Slot ${slot.crc} (position ${slot.position} of wall '${slot.wall_name}') holds no order, so there is nothing to label: ` +
            'check that you scanned the right slot, or print the label by order id (POST /license-plates/orders/{id}/...).',
        );
      }
      orderId = slot.order_id;
    } else {
      orderId = target.orderId;
    }
    const order = (
      (await tx.execute(
        `select o.ship_to, (select coalesce(sum(i.qty), 0)::int from order_item i where i.client_id = o.client_id and i.order_id = o.id) as units
         from orders o where o.client_id = ? and o.id = ?`,
        [clientId, orderId],
      )) as { ship_to: ShipTo | string; units: number }[]
    )[0];
    if (!order) throw new AppError('not-found', `Your company has no order ${orderId}.`);
    if (!('crc' in target)) slot = ((await tx.execute(`${slotSql} sb.order_id = ?`, [clientId, orderId])) as SlotRow[])[0];

    // A reprint bumps the count under the row lock; a first print inserts (two first prints at once: one inserts, one updates).
    const reprint = `update license_plate set print_count = print_count + 1, last_printed_at = now()
                     where client_id = ? and order_id = ? returning plate_number, print_count`;
    let plate = ((await tx.execute(reprint, [clientId, orderId])) as { plate_number: string; print_count: number }[])[0];
    plate ??= (
      (await tx.execute(
        `insert into license_plate (client_id, order_id, plate_number, print_count, last_printed_at)
         values (?, ?, 'LP' || lpad(nextval('license_plate_number_seq')::text, 10, '0'), 1, now())
         on conflict (client_id, order_id) do update set print_count = license_plate.print_count + 1, last_printed_at = now()
         returning plate_number, print_count`,
        [clientId, orderId],
      )) as { plate_number: string; print_count: number }[]
    )[0]!;

    const where = slot ? ` from slot ${slot.crc} of wall '${slot.wall_name}'` : '';
    await tx.execute(
      `insert into audit_log (client_id, event_id, type, kind, wall_id, user_id, order_id, crc, is_license_plate, message, data)
       values (?, ?, 'license-plate.generated', 'license-plate', ?, ?, ?, ?, true, ?, ?::jsonb)`,
      [
        clientId,
        uuidV5(`license-plate:${clientId}:${orderId}:${plate.print_count}`),
        slot?.wall_id ?? null,
        userId,
        orderId,
        slot?.crc ?? null,
        `License plate ${plate.plate_number} (${format.toUpperCase()}) printed for order ${orderId}${where}` +
          (plate.print_count > 1 ? ` (reprint ${plate.print_count - 1})` : ''),
        JSON.stringify({ plateNumber: plate.plate_number, format, printCount: plate.print_count }),
      ],
    );
    return {
      plateNumber: plate.plate_number,
      orderId,
      shipTo: typeof order.ship_to === 'string' ? (JSON.parse(order.ship_to) as ShipTo) : order.ship_to,
      wallName: slot?.wall_name ?? null,
      crc: slot?.crc ?? null,
      units: Number(order.units),
    };
  });
}
