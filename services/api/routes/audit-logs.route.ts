import { z } from 'zod';
import { defineRoute, type RouteDef } from '../http/route';
import { idParam, isoDateTime, queryBool } from '../http/validation';
import { auditLogDto } from '../use-cases/audit/audit-log.dto';
import {
  initialAuditTimestamp,
  listAuditLogs,
  listAuditLogsOfKinds,
  listSlotStayAuditLogs,
  type AuditQuery,
} from '../use-cases/audit/list-audit-logs.use-case';

// Query parameters the interface calls nullable: an empty value is the same as an absent one.
const blankAsAbsent = (v: unknown) => (v === '' ? undefined : v);
const dateTime = z.preprocess(
  blankAsAbsent,
  // The shared date-time schema: years 1..9999 in UTC, so PostgreSQL can compare with it.
  isoDateTime.transform((s) => new Date(s)).optional(),
);
const id = z.preprocess(blankAsAbsent, idParam.optional());
const bool = z.preprocess(blankAsAbsent, queryBool.optional());
const text = z.string().max(200).optional();

const window = {
  from: dateTime.describe('Only records at or after this instant.'),
  to: dateTime.describe('Only records before this instant.'),
  since: dateTime.describe('Only records after this instant, oldest first (to catch up); without it the newest come first.'),
  count: z.coerce.number().int().min(0).max(1000).default(25).describe('How many records, 0..1000; default 25.'),
};
const wallId = id.describe('Only records of this wall.');
const userId = id.describe('Only records of this employee.');
const picklistId = id.describe('Only records of this picklist.');
const orderId = id.describe('Only records of this order.');
const orderSortId = dateTime.describe(
  "One order's stay in a slot, named by the instant it began (the createdAt of the scan that put the order into the slot): " +
    'records from then up to the slot\'s next release.',
);

const listAll = z.object({
  ...window,
  wallId,
  orderId,
  warehouseId: id.describe("Only records of walls of this warehouse (the client's own warehouse id)."),
  userId,
  crc: text.describe("Only records of the slot with this crc."),
  barcode: text.describe('Only records of this scanned barcode.'),
  errors: bool.describe('true: only refused commands (isError); false: none of them.'),
  licensePlates: bool.describe('true: only license plate records; false: none of them.'),
});
const bySlot = z.object({
  orderSortId: isoDateTime
    .transform((s) => new Date(s))
    .describe(orderSortId.description ?? ''),
  userId,
  licensePlates: bool.describe('true: only license plate records; false: none of them.'),
});
const sortBoxes = z.object({
  ...window,
  wallId,
  sortBoxCrc: text.describe('Only records of the slot with this crc.'),
  userId,
  picklistId,
  orderId,
  orderSortId,
  licensePlates: bool.describe('true: only license plate records; false: only slot records.'),
});
const sortBoxItems = z.object({
  ...window,
  wallId,
  sortBoxCrc: text.describe('Only records of the slot with this crc.'),
  userId,
  picklistId,
  orderId,
  orderSortId,
  barcode: text.describe('Only records of this scanned barcode.'),
});
const sessions = z.object({ ...window, wallId, userId, picklistId });
const walls = z.object({ ...window, wallId, userId });

const ACCESS = ['Manager', 'Admin'] as const;
const TAGS = ['Audit logs'];
const ORDER_DOC = 'Newest first; with since, the records after it, oldest first. Refused commands are records too (isError: true, type command.refused).';

export const auditLogsRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: '/audit-logs',
    operationId: 'ListAuditLogs',
    summary: 'List audit records of every kind',
    description: ORDER_DOC,
    tags: TAGS,
    access: ACCESS,
    query: listAll,
    response: z.array(auditLogDto),
    errors: ['validation-failed'],
    handler: ({ em, auth, query }) => listAuditLogs(em, auth.clientId, query as AuditQuery),
  }),
  defineRoute({
    method: 'get',
    path: '/audit-logs/sort-boxes/{crc}',
    operationId: 'ListAuditLogsBySortBoxAndOrderSort',
    summary: "List the records of one order's stay in one slot",
    description:
      'Every record of slot {crc} from orderSortId up to and including the slot\'s next release (slot, item and license plate records), newest first, at most 1000.',
    tags: TAGS,
    access: ACCESS,
    params: z.object({ crc: z.string().min(1).max(64) }),
    query: bySlot,
    response: z.array(auditLogDto),
    errors: ['validation-failed'],
    handler: ({ em, auth, params, query }) => listSlotStayAuditLogs(em, auth.clientId, params.crc, query),
  }),
  defineRoute({
    method: 'get',
    path: '/audit-logs/sort-boxes',
    operationId: 'ListSortBoxAuditLogs',
    summary: 'List slot records (completed, released, license plates)',
    description: ORDER_DOC,
    tags: TAGS,
    access: ACCESS,
    query: sortBoxes,
    response: z.array(auditLogDto),
    errors: ['validation-failed'],
    handler: ({ em, auth, query }) => listAuditLogsOfKinds(em, auth.clientId, ['sort-box', 'license-plate'], query as AuditQuery),
  }),
  defineRoute({
    method: 'get',
    path: '/audit-logs/sort-box-items',
    operationId: 'ListSortBoxItemAuditLogs',
    summary: 'List item records (scans, confirmations, cancellations, swaps, and refused ones)',
    description: ORDER_DOC,
    tags: TAGS,
    access: ACCESS,
    query: sortBoxItems,
    response: z.array(auditLogDto),
    errors: ['validation-failed'],
    handler: ({ em, auth, query }) => listAuditLogsOfKinds(em, auth.clientId, ['sort-box-item'], query as AuditQuery),
  }),
  defineRoute({
    method: 'get',
    path: '/audit-logs/sessions',
    operationId: 'ListUserSessionsAuditLogs',
    summary: 'List sorter session records (started, renewed, ended, and refused connects)',
    description: ORDER_DOC,
    tags: TAGS,
    access: ACCESS,
    query: sessions,
    response: z.array(auditLogDto),
    errors: ['validation-failed'],
    handler: ({ em, auth, query }) => listAuditLogsOfKinds(em, auth.clientId, ['session'], query as AuditQuery),
  }),
  defineRoute({
    method: 'get',
    path: '/audit-logs/walls',
    operationId: 'ListWallAuditLogs',
    summary: 'List wall records (changes to a wall and its slots)',
    description: ORDER_DOC,
    tags: TAGS,
    access: ACCESS,
    query: walls,
    response: z.array(auditLogDto),
    errors: ['validation-failed'],
    handler: ({ em, auth, query }) => listAuditLogsOfKinds(em, auth.clientId, ['wall'], query as AuditQuery),
  }),
  defineRoute({
    method: 'get',
    path: '/audit-logs/initial-timestamp',
    operationId: 'GetInitialWallAuditLogTimestamp',
    summary: "The time of the client's oldest audit record",
    description: 'ISO 8601 UTC; the current time while the log is still empty.',
    tags: TAGS,
    access: ACCESS,
    response: z.string(),
    handler: ({ em, auth }) => initialAuditTimestamp(em, auth.clientId),
  }),
];
