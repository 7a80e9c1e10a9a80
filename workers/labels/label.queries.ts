import { query } from '../../shared/db/named-sql';
import type { LabelFormat } from '../../shared/labels/label-data';
import { LABEL_DATA_CTES, NEW_PLATE_NUMBER_SQL, type LabelRow } from '../../shared/labels/label-data.queries';

/* The labels consumer's statements (workers/labels/prerender-label.use-case.ts). */

/*
 * Makes the order's plate number if it has none yet (print_count 0: no print happened, so no audit
 * row, docs/api.md §9 audits prints) and reads what the label shows, in one statement. An existing
 * number is kept; the no-op update only makes the upsert return it.
 */
export const plateForPrerender = query<{ clientId: number; orderId: number }, LabelRow>('label-plate-prerender', `
with ${LABEL_DATA_CTES}, p as (
  insert into license_plate (client_id, order_id, plate_number, print_count)
  select :clientId::int, o.id, ${NEW_PLATE_NUMBER_SQL}, 0 from o
  on conflict (client_id, order_id) do update set plate_number = license_plate.plate_number
  returning plate_number
)
select o.ship_to, o.units, p.plate_number, s.crc, s.position, s.wall_name
from o cross join p left join s on true`);

/** One rendered document, replacing the order's document of that format. */
export const storeLabelDocument = query<{ clientId: number; orderId: number; format: LabelFormat; plateNumber: string; hash: string; body: Buffer }>(
  'label-document-store',
  `insert into license_plate_document (client_id, order_id, format, plate_number, label_hash, body, rendered_at)
   values (:clientId::int, :orderId::int, :format::text, :plateNumber::text, :hash::text, :body::bytea, now())
   on conflict (client_id, order_id, format) do update
     set plate_number = excluded.plate_number, label_hash = excluded.label_hash, body = excluded.body, rendered_at = excluded.rendered_at`,
);

/** The formats each of these clients printed within the last :days days: the ones worth rendering ahead. */
export const recentlyPrintedFormats = query<{ clientIds: number[]; days: number }, { client_id: number; format: LabelFormat }>(
  'label-formats-printed',
  `select client_id, format from label_print_format
    where client_id = any(:clientIds::int[]) and last_printed_at > now() - make_interval(days => :days::int)`,
);
