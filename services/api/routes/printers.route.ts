import { z } from 'zod';
import { defineRoute, type RouteDef } from '../http/route';
import { idParam, slotCrcParam } from '../http/validation';
import { completeSlotDto, printerDto, printJobDto } from '../use-cases/printers/printer.dto';
import { printJob, printSlotPlate, printTestLabel, wallCompleteSlots } from '../use-cases/printers/print-job.use-case';
import { addPrinter, printer, printerJobs, printers, removePrinter } from '../use-cases/printers/printers.use-case';

const tags = ['Printers'];

/** A host name or an IP address (v4 or v6) on the floor network. */
const hostName = z
  .string()
  .trim()
  .min(1)
  .max(253)
  .refine(
    (h) => z.ipv4().safeParse(h).success || z.ipv6().safeParse(h).success || /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/.test(h),
    'must be a host name or an IP address',
  );

const createPrinterBody = z.object({
  name: z.string().trim().min(1).max(100).describe('What the floor calls it ("Wall 1 back"), 1..100 characters'),
  host: hostName.describe('Host name or IP address of the printer on the floor network'),
  port: z.number().int().min(1).max(65535).optional().describe('Raw TCP port it takes ZPL on; default 9100'),
});

const printerParams = z.object({ id: idParam.describe('Printer id') });

export const printersRoutes: RouteDef[] = [
  defineRoute({
    method: 'post',
    path: '/printers',
    operationId: 'CreatePrinter',
    summary: 'Register a network label printer',
    action: 'create a network label printer',
    description:
      'A Zebra-compatible label printer that takes ZPL on a raw TCP port (9100 by default). A wall names its printer with PATCH /walls/{id} ' +
      '(printerId); its shipper\'s prints (POST /license-plates/{crc}/print) and, with autoPrint, each order completed in the wall go to it.',
    tags,
    access: ['Manager'],
    body: createPrinterBody,
    response: printerDto,
    handler: ({ em, auth, body }) => addPrinter(em, auth.clientId, body),
  }),
  defineRoute({
    method: 'get',
    path: '/printers',
    operationId: 'ListPrinters',
    summary: "List your company's printers with their health",
    description: 'Oldest first. lastPrintedAt: the last label a printer took in full; lastError: why the last attempt to reach it failed (null once one succeeds).',
    tags,
    access: 'authenticated',
    response: z.array(printerDto),
    handler: ({ em, auth }) => printers(em, auth.clientId),
  }),
  defineRoute({
    method: 'get',
    path: '/printers/{id}',
    operationId: 'GetPrinter',
    summary: 'Get a printer with its health',
    tags,
    access: 'authenticated',
    params: printerParams,
    response: printerDto,
    errors: ['not-found'],
    handler: ({ em, auth, params }) => printer(em, auth.clientId, params.id),
  }),
  defineRoute({
    method: 'get',
    path: '/printers/{id}/jobs',
    operationId: 'ListPrinterJobs',
    summary: "List a printer's latest print jobs",
    description: 'Newest first.',
    tags,
    access: 'authenticated',
    params: printerParams,
    query: z.object({ count: z.coerce.number().int().min(1).max(1000).default(50).describe('1..1000, default 50') }),
    response: z.array(printJobDto),
    errors: ['not-found'],
    handler: ({ em, auth, params, query }) => printerJobs(em, auth.clientId, params.id, query.count),
  }),
  defineRoute({
    method: 'delete',
    path: '/printers/{id}',
    operationId: 'DeletePrinter',
    summary: 'Remove a printer',
    description: 'Refused with 409 printer-in-use while a wall names it. Its print jobs, sent or not, go with it.',
    tags,
    access: ['Manager'],
    params: printerParams,
    errors: ['not-found', 'printer-in-use'],
    handler: ({ em, auth, params }) => removePrinter(em, auth.clientId, params.id),
  }),
  defineRoute({
    method: 'post',
    path: '/printers/{id}/test',
    operationId: 'PrintTestLabel',
    summary: 'Print a test label on a printer',
    description:
      "Answers at once (202) with the print job, as a license plate's print does; the labels worker sends it the same way (Queued while the printer does not answer, " +
      'then Sent, or Failed when given up), so the job shows whether the printer takes labels. The label (4 × 2 inch ZPL) carries the printer\'s name and address, ' +
      'the time and a Code 128; the job has no order (orderId null) and writes no audit row.',
    tags,
    access: ['Manager'],
    params: printerParams,
    successStatus: 202,
    response: printJobDto,
    errors: ['not-found'],
    handler: ({ em, auth, params }) => printTestLabel(em, auth, params.id),
  }),
  defineRoute({
    method: 'post',
    path: '/license-plates/{crc}/print',
    leavesWallViews: true,
    operationId: 'PrintLicensePlateForCrc',
    summary: "Print the license plate of the order in a slot on its wall's printer",
    description:
      "Answers at once (202) with the print job; the labels worker sends it to the wall's printer: exactly the bytes POST " +
      '/license-plates/{crc}/zpl answers for the slot (it is the same print: plate number, audit row). While the printer does not answer, ' +
      'the job stays Queued and is tried again with growing waits; once the printer has taken every byte it is Sent and never sent again. ' +
      'Follow it with GET /print-jobs/{id}. A wall without a printer → 409 no-printer (print the PDF instead); a slot that holds no ' +
      'order → 409 slot-not-complete; an unknown crc → 404.',
    tags: ['License plates'],
    access: ['Sorter'],
    params: z.object({ crc: slotCrcParam.describe('The slot crc (any case), or its shipper (B-) or sorter (A-) barcode as scanned') }),
    successStatus: 202,
    response: printJobDto,
    errors: ['validation-failed', 'not-found', 'slot-not-complete', 'no-printer', 'service-unavailable'],
    handler: ({ em, deps, auth, params }) => printSlotPlate(em, deps.labels, auth, params.crc),
  }),
  defineRoute({
    method: 'get',
    path: '/print-jobs/{id}',
    operationId: 'GetPrintJob',
    summary: 'Get a print job and its state',
    tags,
    access: 'authenticated',
    params: z.object({ id: idParam.describe('Print job id') }),
    response: printJobDto,
    errors: ['not-found'],
    handler: ({ em, auth, params }) => printJob(em, auth.clientId, params.id),
  }),
  defineRoute({
    method: 'get',
    path: '/walls/{id}/complete-slots',
    operationId: 'ListWallCompleteSlots',
    summary: "List a wall's Complete slots for the shipper",
    description:
      'The slots whose order is complete and waits to be labelled and released, oldest first (by when the order became complete), ' +
      'with the order, its units and how long it has waited. The shipper\'s page (/shipper) shows this list.',
    tags: ['Walls'],
    access: 'authenticated',
    params: z.object({ id: idParam.describe('Wall id') }),
    response: z.array(completeSlotDto),
    errors: ['not-found'],
    handler: ({ em, auth, params }) => wallCompleteSlots(em, auth.clientId, params.id),
  }),
];
