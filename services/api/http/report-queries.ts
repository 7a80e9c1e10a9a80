import { z } from 'zod';
import { LocalDay } from '../use-cases/insights/insights-range';
import { parseSlotBarcode } from '../../../shared/domain/barcodes';
import { idParam, isoDateTime, queryBool } from './validation';

/*
 * The query schemas of the two reporting families: the audit-log listings (records, filtered) and the
 * insights (figures of a range). The routes (audit-logs.route.ts, insights.route.ts) name them.
 */

// ---- Audit logs

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
// A slot filter takes what a slot path takes (crc in any case, or the A-/B- barcode as scanned), so a
// scanned code finds the slot's records; other text is compared as it is.
const slotCrc = text.transform((v) => (v === undefined ? v : (parseSlotBarcode(v)?.crc ?? v)));

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

const licensePlatesOrNone = bool.describe('true: only license plate records; false: none of them.');

const listAll = z.object({
  ...window,
  wallId,
  orderId,
  warehouseId: id.describe("Only records of walls of this warehouse (the client's own warehouse id)."),
  userId,
  crc: slotCrc.describe('Only records of the slot with this crc (any case, or its A- or B- barcode).'),
  barcode: text.describe('Only records of this scanned barcode.'),
  errors: bool.describe('true: only refused commands (isError); false: none of them.'),
  licensePlates: licensePlatesOrNone,
});
const bySlot = z.object({
  orderSortId: isoDateTime
    .transform((s) => new Date(s))
    .describe(orderSortId.description ?? ''),
  userId,
  licensePlates: licensePlatesOrNone,
});
/** The filters of the slot and item listings, in this order. */
const slotRecords = {
  ...window,
  wallId,
  sortBoxCrc: slotCrc.describe('Only records of the slot with this crc (any case, or its A- or B- barcode).'),
  userId,
  picklistId,
  orderId,
  orderSortId,
};
const sortBoxes = z.object({
  ...slotRecords,
  licensePlates: bool.describe('true: only license plate records; false: only slot records.'),
});
const sortBoxItems = z.object({
  ...slotRecords,
  barcode: text.describe('Only records of this scanned barcode.'),
});

/** The query of each audit-log listing (docs/api.md §9). */
export const auditLogQueries = {
  listAll,
  bySlot,
  sortBoxes,
  sortBoxItems,
  sessions: z.object({ ...window, wallId, userId, picklistId }),
  walls: z.object({ ...window, wallId, userId }),
};

// ---- Insights (docs/insights.md)

const MAX_YEAR = 9999;

// A point in time: an ISO 8601 date-time with Z or an offset, or a date: that day's midnight in the scope's time zone.
export const instant = (name: string, endOfDay = false) =>
  z
    .string({ error: (iss) => (iss.input === undefined ? 'is required' : 'must be a date-time') })
    .refine((v) => z.iso.datetime({ offset: true }).safeParse(v).success || z.iso.date().safeParse(v).success, 'must be an ISO 8601 date-time (e.g. 2026-11-23T08:00:00Z) or a date')
    .transform((v, ctx) => {
      const d = /^\d{4}-\d{2}-\d{2}$/.test(v) ? new LocalDay(v, endOfDay) : new Date(v);
      const year = d.getUTCFullYear();
      if (Number.isNaN(d.getTime()) || year < 1970 || year > MAX_YEAR) {
        ctx.addIssue({ code: 'custom', message: `must be a valid date-time between 1970 and ${MAX_YEAR}` });
        return z.NEVER;
      }
      // 2026-02-30 is not a day (Date would roll it over into March).
      if (d instanceof LocalDay && new Date(`${v}T00:00:00Z`).toISOString().slice(0, 10) !== v) {
        ctx.addIssue({ code: 'custom', message: 'is not a calendar day' });
        return z.NEVER;
      }
      return d;
    })
    .describe(
      `${name}: ISO 8601 date-time with Z or an offset, or a date YYYY-MM-DD (in the scope's time zone: ${endOfDay ? 'the end of that day, so the day is included' : "that day's midnight"}). Required.`,
    );

// Nullable filters: absent, empty or "null" mean no filter.
const optionalId = (description: string) =>
  z
    .preprocess((v) => (v === undefined || v === '' || v === 'null' ? null : v), idParam.nullable())
    .optional()
    .transform((v) => v ?? null)
    .describe(`${description} Optional (nullable).`);

const MAX_RANGE_DAYS = 3700;
export const scopeFilters = {
  warehouseId: optionalId("Only this warehouse (the company's warehouse id): its walls' figures, in its time zone."),
  wallId: optionalId("Only this wall, in its warehouse's time zone. With warehouseId too, a wall of another warehouse matches nothing."),
};
export const userFilter = { userId: optionalId('Only units of this employee (the sorter who scanned them).') };

/** from and to, required; from after to, or a range over MAX_RANGE_DAYS, is a 400. */
export function rangeQuery<S extends z.ZodRawShape>(extra: S) {
  return z
    .object({ from: instant('Start of the range'), to: instant('End of the range (exclusive)', true), ...extra })
    .superRefine((q, ctx) => {
      const { from, to } = q as unknown as { from: unknown; to: unknown };
      // Runs even when a field failed its own check: compare only two valid instants.
      if (!(from instanceof Date) || !(to instanceof Date)) return;
      if (from.getTime() > to.getTime()) ctx.addIssue({ code: 'custom', path: ['from'], message: 'must not be after to' });
      else if (to.getTime() - from.getTime() > MAX_RANGE_DAYS * 86_400_000) {
        ctx.addIssue({ code: 'custom', path: ['to'], message: `the range may span at most ${MAX_RANGE_DAYS} days` });
      }
    });
}
