import { query } from '../db/named-sql';
import type { LabelFormat } from './label-data';
import { LABEL_DATA_CTES, NEW_PLATE_NUMBER_SQL, type LabelRow } from './label-data.queries';

/** What a print reads: the label's data, the print count, and the document rendered ahead (if any). */
export interface PrintRow extends LabelRow {
  print_count: number;
  stored_hash: string | null;
  stored_body: Buffer | null;
}

/*
 * One statement prints (the API's print routes, and the automatic print of a completed order by the
 * labels worker, whose :userId is null): it reads the order and its slot, makes the plate number on the first print or
 * counts the reprint (the row lock of the upsert orders simultaneous prints of one order), and writes
 * the audit row (kind license-plate) with an event id derived from the order and the print count, so
 * one print is one row, and notes the format as one the client prints (label_print_format: the labels
 * worker renders ahead in those). It also reads the document rendered ahead, if any. A single
 * statement commits all of it or nothing, in one round trip.
 * nextval() runs for reprints too: plate numbers are unique, not gap-free.
 */
export const printPlate = query<{ clientId: number; orderId: number; userId: number | null; format: LabelFormat }, PrintRow>('license-plate-print', `
with ${LABEL_DATA_CTES}, p as (
  insert into license_plate (client_id, order_id, plate_number, print_count, last_printed_at)
  select :clientId::int, o.id, ${NEW_PLATE_NUMBER_SQL}, 1, now() from o
  on conflict (client_id, order_id) do update set print_count = license_plate.print_count + 1, last_printed_at = now()
  returning plate_number, print_count
), a as (
  insert into audit_log (client_id, event_id, type, kind, wall_id, user_id, order_id, crc, is_license_plate, message, data)
  select :clientId::int, md5('license-plate:' || cast(:clientId as text) || ':' || cast(:orderId as text) || ':' || p.print_count)::uuid,
         'license-plate.generated', 'license-plate', s.wall_id, :userId::int, :orderId::int, s.crc, true,
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
left join license_plate_document d on d.client_id = :clientId and d.order_id = :orderId and d.format = :format`);
