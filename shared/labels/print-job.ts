/**
 * Print jobs (docs/api.md §12): a license plate's ZPL on its way to a network label printer. The API
 * makes a job when a shipper asks to print; the labels worker makes one when an order completes in a
 * slot of a wall that prints by itself (`autoPrint`), and sends every job (workers/labels/print-sender.ts).
 */
export const PRINT_JOB_STATUSES = ['Queued', 'Sent', 'Failed'] as const;
export type PrintJobStatus = (typeof PRINT_JOB_STATUSES)[number];

/** Who asked for a job: a person (`request`, POST /license-plates/{slot}/print) or the wall's setting (`auto`). */
export type PrintJobSource = 'request' | 'auto' | 'test';

/** The raw TCP port Zebra-compatible label printers take ZPL on. */
export const DEFAULT_PRINTER_PORT = 9100;
