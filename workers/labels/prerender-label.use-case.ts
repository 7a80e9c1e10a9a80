import type { EntityManager } from '@mikro-orm/postgresql';
import type { LabelFormat } from './label-data';
import { LABEL_DATA_CTES, NEW_PLATE_NUMBER_SQL, labelHash, toLabel, type LabelRow } from './label-sql';
import { renderPdf } from './render-pdf';
import { renderZpl } from './render-zpl';

/*
 * Makes the order's plate number if it has none yet (print_count 0: no print happened, so no audit
 * row, docs/api.md §9 audits prints) and reads what the label shows, in one statement. An existing
 * number is kept; the no-op update only makes the upsert return it.
 */
const PLATE_SQL = `
with ${LABEL_DATA_CTES}, p as (
  insert into license_plate (client_id, order_id, plate_number, print_count)
  select :clientId, o.id, ${NEW_PLATE_NUMBER_SQL}, 0 from o
  on conflict (client_id, order_id) do update set plate_number = license_plate.plate_number
  returning plate_number
)
select o.ship_to, o.units, p.plate_number, s.crc, s.position, s.wall_name
from o cross join p left join s on true`;

const STORE_SQL = `
insert into license_plate_document (client_id, order_id, format, plate_number, label_hash, body, rendered_at)
values (?, ?, ?, ?, ?, ?, now()), (?, ?, ?, ?, ?, ?, now())
on conflict (client_id, order_id, format) do update
  set plate_number = excluded.plate_number, label_hash = excluded.label_hash, body = excluded.body, rendered_at = excluded.rendered_at`;

export type PrerenderResult = { plateNumber: string; formats: LabelFormat[] } | { skipped: 'no-such-order' };

/**
 * Renders an order's license plate ahead, as ZPL and as PDF, and stores both with the digest of the
 * data they show, so the shipper's print can answer them at once. Idempotent: a repeated render
 * replaces the documents with the same or newer ones (the print compares digests, so an older one
 * left by a race is never answered).
 */
export async function prerenderLicensePlate(em: EntityManager, clientId: number, orderId: number): Promise<PrerenderResult> {
  const knex = em.getKnex();
  const row = (
    (await knex.raw(PLATE_SQL, { clientId, orderId })) as {
      rows: LabelRow[];
    }
  ).rows[0];
  if (!row) return { skipped: 'no-such-order' };
  const label = toLabel(row, orderId);
  const hash = labelHash(label);
  const zpl = Buffer.from(renderZpl(label), 'utf8');
  const pdf = await renderPdf(label);
  await knex.raw(STORE_SQL, [clientId, orderId, 'zpl', label.plateNumber, hash, zpl, clientId, orderId, 'pdf', label.plateNumber, hash, pdf]);
  return { plateNumber: label.plateNumber, formats: ['zpl', 'pdf'] };
}
