import { z } from 'zod';

/** The AuditLog record (docs/api.md §9); the sort box, item, session and wall listings answer the same record. */
export const auditLogDto = z.object({
  id: z.number().int(),
  occurredAt: z.string().describe('ISO 8601 UTC'),
  type: z.string().describe("The event type (e.g. 'sort-box-item.created'), or 'command.refused' for a refused command (isError)"),
  wallId: z.number().int().nullable(),
  userId: z.number().int().nullable(),
  orderId: z.number().int().nullable(),
  picklistId: z.number().int().nullable(),
  crc: z.string().nullable().describe("The slot's crc"),
  barcode: z.string().nullable().describe('The scanned unit barcode'),
  sortBoxItemId: z.number().int().nullable(),
  sessionId: z.number().int().nullable(),
  isError: z.boolean().describe('true: a refused command; data.code and data.detail say why'),
  message: z.string(),
  data: z.record(z.string(), z.unknown()).describe("The event's data; for a refused command { command, code, detail, ... }"),
});
export type AuditLogDto = z.infer<typeof auditLogDto>;
