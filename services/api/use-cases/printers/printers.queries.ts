import { query } from '../../../../shared/db/named-sql';
import { PRINT_JOB_COLUMNS, type PrintJobRow } from '../../../../shared/labels/print-job.queries';

/* Printers, the printer a wall names, print jobs and the shipper's list (docs/api.md §12). */

export interface PrinterRow {
  id: number;
  name: string;
  host: string;
  port: number;
  last_printed_at: Date | null;
  last_error: string | null;
  last_error_at: Date | null;
}

const PRINTER_COLUMNS = 'id, name, host, port, last_printed_at, last_error, last_error_at';

export const createPrinter = query<{ clientId: number; name: string; host: string; port: number }, PrinterRow>('printer-create', `
insert into printer (client_id, name, host, port) values (:clientId::int, :name::text, :host::text, :port::int) returning ${PRINTER_COLUMNS}`);

export const listPrinters = query<{ clientId: number }, PrinterRow>('printer-list', `
select ${PRINTER_COLUMNS} from printer where client_id = :clientId::int order by id`);

export const getPrinter = query<{ clientId: number; id: number }, PrinterRow>('printer-get', `
select ${PRINTER_COLUMNS} from printer where client_id = :clientId::int and id = :id::int`);

/*
 * Deletes a printer no wall names (its jobs go with it); answers whether it existed and, when it was
 * kept, the walls naming it. The foreign key of wall_printer stays the backstop of a race.
 */
export const deletePrinter = query<{ clientId: number; id: number }, { existed: boolean; walls: string[] | null; deleted: boolean }>('printer-delete', `
with target as (
  select id from printer where client_id = :clientId::int and id = :id::int
), users as (
  select array_agg(w.name order by w.id) as walls
    from wall_printer wp join wall w on w.id = wp.wall_id join target t on wp.printer_id = t.id
), gone as (
  delete from printer p using target t where p.id = t.id and (select walls from users) is null returning p.id
)
select exists (select 1 from target) as existed, (select walls from users) as walls, exists (select 1 from gone) as deleted`);

/** The printer settings of these walls (a wall without a row: no printer, autoPrint false). */
export const wallPrinterSettings = query<{ clientId: number; wallIds: number[] }, { wall_id: number; printer_id: number | null; auto_print: boolean }>(
  'wall-printer-settings',
  `select wall_id, printer_id, auto_print from wall_printer where client_id = :clientId::int and wall_id = any(:wallIds::int[])`,
);

/** Sets what is given (:printerId only when :setPrinter, :autoPrint when not null), keeping the rest. */
export const setWallPrinter = query<{ clientId: number; wallId: number; setPrinter: boolean; printerId: number | null; autoPrint: boolean | null }>('wall-printer-set', `
insert into wall_printer (wall_id, client_id, printer_id, auto_print)
values (:wallId::int, :clientId::int, case when :setPrinter::boolean then :printerId::int end, coalesce(:autoPrint::boolean, false))
on conflict (wall_id) do update set
  printer_id = case when :setPrinter::boolean then excluded.printer_id else wall_printer.printer_id end,
  auto_print = coalesce(:autoPrint::boolean, wall_printer.auto_print)`);

/** The slot a print names, its order, its wall and the wall's printer. */
export const slotForPrint = query<
  { clientId: number; crc: string },
  { order_id: number | null; position: number; crc: string; status: string; wall_id: number; wall_name: string; printer_id: number | null }
>('print-slot', `
select sb.order_id, sb.position, sb.crc, sb.status, w.id as wall_id, w.name as wall_name, wp.printer_id
  from sort_box sb join wall w on w.id = sb.wall_id left join wall_printer wp on wp.wall_id = w.id
 where sb.client_id = :clientId::int and sb.crc = :crc::text`);

export const getPrintJob = query<{ clientId: number; id: number }, PrintJobRow>('print-job-get', `
select ${PRINT_JOB_COLUMNS} from print_job where client_id = :clientId::int and id = :id::int`);

/** A printer's latest jobs, newest first. */
export const listPrinterJobs = query<{ clientId: number; printerId: number; count: number }, PrintJobRow>('printer-jobs', `
select ${PRINT_JOB_COLUMNS} from print_job where client_id = :clientId::int and printer_id = :printerId::int order by created_at desc, id desc limit :count::int`);

/*
 * The wall's Complete slots for the shipper, oldest first: the order, its units (what was confirmed
 * into the slot for it) and since when it is complete (its last confirm), found by the slot's items.
 */
export const completeSlots = query<
  { clientId: number; wallId: number },
  { position: number; crc: string; order_id: number; units: number; completed_at: Date | null }
>('shipper-complete-slots', `
select sb.position, sb.crc, sb.order_id, coalesce(i.units, 0)::int as units, i.completed_at
  from sort_box sb
  left join lateral (
    select sum(it.confirmed_units) as units, max(it.confirmed_at) as completed_at
      from sort_box_item it where it.sort_box_id = sb.id and it.order_id = sb.order_id and it.status = 'Confirmed'
  ) i on true
 where sb.client_id = :clientId::int and sb.wall_id = :wallId::int and sb.status = 'Complete'
 order by i.completed_at nulls first, sb.position`);
