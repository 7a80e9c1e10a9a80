import { query } from '../../shared/db/named-sql';

/* The labels worker's print statements: automatic prints of completed orders, and the print sender. */

/** Of these walls, the ones that print an order's plate by itself when it completes, and their printer. */
export const autoPrintWalls = query<{ wallIds: number[] }, { wall_id: number; client_id: number; printer_id: number }>('print-auto-walls', `
select wall_id, client_id, printer_id from wall_printer where wall_id = any(:wallIds::int[]) and auto_print and printer_id is not null`);

/** A job claimed for one attempt: the bytes to write and where. */
export interface ClaimedPrintJob {
  id: number;
  client_id: number;
  printer_id: number;
  attempt: number;
  body: Buffer;
  host: string;
  port: number;
  created_at: Date;
}

/*
 * Claims up to :limit due Queued jobs (skip locked: any number of senders share the work) for one
 * attempt each: counts the attempt and leases the job for :leaseMs (a sender that dies before it
 * records the outcome leaves it due again then). Two kinds of due job are not claimed but closed:
 * one whose write began in an attempt whose outcome was never recorded (its printer may have taken the
 * label: never written twice, :unknown says so), and one older than :giveUpMs (printed that late it
 * would only confuse; :late is prefixed to its last error). One round trip.
 */
export const claimPrintJobs = query<{ limit: number; leaseMs: number; giveUpMs: number; unknown: string; late: string }, ClaimedPrintJob>('print-claim', `
with due as (
  select j.id, j.writing_attempt is not null as unknown_outcome, j.created_at < now() - make_interval(secs => :giveUpMs::int / 1000.0) as too_late
    from print_job j
   where j.status = 'Queued' and j.due_at <= now()
   order by j.due_at limit :limit::int for update skip locked
), closed as (
  update print_job j
     set status = 'Failed',
         last_error = case when d.unknown_outcome then :unknown::text else :late::text || coalesce(' Last error: ' || j.last_error, '') end
    from due d where j.id = d.id and (d.unknown_outcome or d.too_late)
), claimed as (
  update print_job j set attempts = j.attempts + 1, due_at = now() + make_interval(secs => :leaseMs::int / 1000.0)
    from due d where j.id = d.id and not d.unknown_outcome and not d.too_late
  returning j.id, j.client_id, j.printer_id, j.attempts, j.body, j.created_at
)
select c.id, c.client_id, c.printer_id, c.attempts as attempt, c.body, p.host, p.port, c.created_at
  from claimed c join printer p on p.id = c.printer_id`);

/** When the next Queued job falls due (null: none), for the sender's sleep. */
export const nextPrintDue = query<Record<string, never>, { due_at: Date | null }>('print-next-due', `
select min(due_at) as due_at from print_job where status = 'Queued'`);

/*
 * The printer answered: this attempt is about to write the bytes. From here the job is never written
 * again unless the write fails before the last byte (printWriteFailed). False (no row): the job is no
 * longer this attempt's (its lease ran out and another sender took it): write nothing.
 */
export const printWriting = query<{ id: number; attempt: number }, { id: number }>('print-writing', `
update print_job set writing_attempt = :attempt::int
 where id = :id::int and attempts = :attempt::int and status = 'Queued' and writing_attempt is null
returning id`);

/*
 * The printer took every byte: the job is Sent (whatever a sender that found its lease over wrote
 * meanwhile: this is what happened), and the printer's health says so.
 */
export const printSent = query<{ id: number; attempt: number }>('print-sent', `
with job as (
  update print_job set status = 'Sent', sent_at = now(), last_error = null, due_at = now()
   where id = :id::int and writing_attempt = :attempt::int
  returning printer_id
)
update printer p set last_printed_at = now(), last_error = null from job where p.id = job.printer_id`);

/*
 * The attempt failed (the printer did not answer, or the connection broke before the last byte):
 * the job is due again at :retryAt with its error, and the printer's health says why.
 */
export const printFailed = query<{ id: number; attempt: number; error: string; retryAt: Date }>('print-failed', `
with job as (
  update print_job set last_error = :error::text, due_at = :retryAt::timestamptz, writing_attempt = null
   where id = :id::int and attempts = :attempt::int and status = 'Queued'
  returning printer_id
)
update printer p set last_error = :error::text, last_error_at = now() from job where p.id = job.printer_id`);

/**
 * Finished jobs older than :days days go (their bytes are kept no longer than that). Deleted by their
 * place in the table, as the other retention statements (workers/sweeper/sweep.queries.ts `oldRows`).
 */
export const deleteOldPrintJobs = query<{ days: number; batch: number }, { id: number }>('print-retention', `
delete from print_job where ctid = any(array(
  select ctid from print_job where status <> 'Queued' and created_at < now() - make_interval(days => :days::int) order by id limit :batch::int
)) returning id`);
