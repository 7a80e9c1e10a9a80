import { z } from 'zod';
import { PRINT_JOB_STATUSES } from '../../../../shared/labels/print-job';
import type { PrintJobRow } from '../../../../shared/labels/print-job.queries';
import type { PrinterRow } from './printers.queries';

/** Printer (docs/api.md §12): a network label printer and its health as the print sender last saw it. */
export const printerDto = z.object({
  id: z.number().int(),
  name: z.string(),
  host: z.string().describe('Host name or IP address of the printer on the floor network'),
  port: z.number().int().describe('Raw TCP port it takes ZPL on (9100 on Zebra-compatible printers)'),
  lastPrintedAt: z.string().nullable().describe('When it last took a label in full (ISO 8601 UTC); null: never'),
  lastError: z
    .string()
    .nullable()
    .describe('Why the last attempt to reach it failed; null when the last attempt succeeded (or there was none)'),
});
export type PrinterDto = z.infer<typeof printerDto>;

export function toPrinterDto(r: PrinterRow): PrinterDto {
  return {
    id: r.id,
    name: r.name,
    host: r.host,
    port: r.port,
    lastPrintedAt: r.last_printed_at ? new Date(r.last_printed_at).toISOString() : null,
    lastError: r.last_error,
  };
}

/** PrintJob (docs/api.md §12). */
export const printJobDto = z.object({
  id: z.number().int(),
  printerId: z.number().int(),
  orderId: z.number().int().nullable().describe("The order whose license plate it prints; null for a test print (POST /printers/{id}/test)"),
  status: z.enum(PRINT_JOB_STATUSES).describe('Queued: waiting for the printer (retried while it does not answer); Sent: the printer took every byte; Failed: given up (see lastError)'),
  attempts: z.number().int().describe('Attempts to reach the printer so far'),
  lastError: z.string().nullable().describe('Why the last attempt failed; null when none failed'),
  createdAt: z.string(),
  sentAt: z.string().nullable().describe('When the printer took the label; null unless Sent'),
});
export type PrintJobDto = z.infer<typeof printJobDto>;

export function toPrintJobDto(r: PrintJobRow): PrintJobDto {
  return {
    id: r.id,
    printerId: r.printer_id,
    orderId: r.order_id,
    status: r.status,
    attempts: r.attempts,
    lastError: r.last_error,
    createdAt: new Date(r.created_at).toISOString(),
    sentAt: r.sent_at ? new Date(r.sent_at).toISOString() : null,
  };
}

/** A Complete slot as the shipper's page lists it. */
export const completeSlotDto = z.object({
  position: z.number().int().describe('The slot number on the wall'),
  crc: z.string(),
  shipperBarcode: z.string().describe('B-<crc>: the barcode on the back the shipper scans'),
  orderId: z.number().int(),
  units: z.number().int().describe('Units sorted into the slot for the order'),
  completedAt: z.string().nullable().describe('When the order became complete (its last confirm), ISO 8601 UTC'),
  waitingSeconds: z.number().int().describe('Seconds since then'),
});
export type CompleteSlotDto = z.infer<typeof completeSlotDto>;

/** What the Wall record shows about printing (GET/POST/PATCH /walls). */
export const wallPrintingFields = {
  printerId: z.number().int().nullable().describe("The wall's label printer (GET /printers); null: none, the shipper prints PDFs"),
  autoPrint: z.boolean().describe("Whether the wall prints an order's license plate on its printer by itself when the order becomes complete"),
};
