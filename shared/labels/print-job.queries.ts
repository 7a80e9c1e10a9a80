import { query } from '../db/named-sql';
import type { PrintJobSource, PrintJobStatus } from './print-job';

/* The print job statements the API and the labels worker share (shared/labels/print-job.ts). */

/** A print_job row as the API answers it (PrintJob, docs/api.md §12). */
export interface PrintJobRow {
  id: number;
  printer_id: number;
  /** Null for a test print (source 'test'). */
  order_id: number | null;
  status: PrintJobStatus;
  attempts: number;
  last_error: string | null;
  created_at: Date;
  sent_at: Date | null;
}

export const PRINT_JOB_COLUMNS = 'id, printer_id, order_id, status, attempts, last_error, created_at, sent_at';

/**
 * A new job, due now, holding the exact bytes the printer is to receive. An automatic print names the
 * order-complete event it came from: a second job for the same event is not made (none is returned).
 */
export const insertPrintJob = query<
  {
    clientId: number;
    printerId: number;
    wallId: number | null;
    orderId: number | null;
    crc: string | null;
    plateNumber: string | null;
    source: PrintJobSource;
    eventId: string | null;
    userId: number | null;
    body: Buffer;
  },
  PrintJobRow
>('print-job-insert', `
insert into print_job (client_id, printer_id, wall_id, order_id, crc, plate_number, source, event_id, user_id, body)
values (:clientId::int, :printerId::int, :wallId::int, :orderId::int, :crc::text, :plateNumber::text, :source::text, :eventId::uuid, :userId::int, :body::bytea)
on conflict (event_id) where event_id is not null do nothing
returning ${PRINT_JOB_COLUMNS}`);
