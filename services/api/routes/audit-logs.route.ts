import { z } from 'zod';
import { defineRoute, type RouteDef } from '../http/route';
import { auditLogQueries as q } from '../http/report-queries';
import { slotCrcParam } from '../http/validation';
import { auditLogDto } from '../use-cases/audit/audit-log.dto';
import {
  initialAuditTimestamp,
  listAuditLogs,
  listAuditLogsOfKinds,
  listSlotStayAuditLogs,
  type AuditQuery,
} from '../use-cases/audit/list-audit-logs.use-case';

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
    query: q.listAll,
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
    params: z.object({ crc: slotCrcParam.describe('The slot crc (any case), or its sorter (A-) or shipper (B-) barcode as scanned') }),
    query: q.bySlot,
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
    query: q.sortBoxes,
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
    query: q.sortBoxItems,
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
    query: q.sessions,
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
    query: q.walls,
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
