import { z } from 'zod';
import { BARCODE_INPUT_METHODS } from '../../../shared/db/entities/sort-box-item.entity';
import { defineRoute, type RouteDef } from '../http/route';
import { idParam } from '../http/validation';
import { rangeQuery, instant, scopeFilters, userFilter } from '../http/report-queries';
import * as insights from '../use-cases/insights/insights.use-case';

/*
 * The eight insights operations (docs/insights.md). Every figure comes from the statistics roll-ups,
 * which follow the outbox within seconds.
 */

const ZONE_RULE =
  "Days and hours are those of the scope's time zone: with wallId, the wall's warehouse's timeZone; with warehouseId, that warehouse's; " +
  'without either (the whole company), UTC. A warehouse without a timeZone counts in UTC.';
const HOUR_RULE = 'The range counts whole hours: from is rounded down and to up to a whole hour (to is exclusive); the answer gives the range counted.';
const DAY_RULE = "The range counts whole days: the day holding from to the day holding to (a to at exactly midnight ends the day before); the answer gives the range counted as instants.";
const WALL_ZONE = "Hours of the wall's warehouse's time zone (UTC without one).";

const sortingStatsDto = z.object({
  from: z.string().describe('First instant counted (UTC).'),
  to: z.string().describe('End of the range counted, exclusive (UTC).'),
  scans: z.number().int().describe('Successful scans: sort box items created in the range (later cancelled ones included).'),
  confirmedUnits: z.number().int().describe('Units confirmed in the range (a confirm of N units counts N).'),
  cancelledItems: z.number().int().describe('Sort box items cancelled in the range (by the sorter, or by a forced release).'),
  failedScans: z.number().int().describe('Scans the service refused in the range (unknown barcode, no fulfillable order, no empty slot, ...).'),
  sortedOrders: z.number().int().describe('Orders whose slot became Complete (every unit confirmed) in the range.'),
  averageSecondsToConfirm: z
    .number()
    .nullable()
    .describe('Mean of confirmedAt − createdAt over the items confirmed in the range, in seconds (3 decimals); null when none was confirmed.'),
  hoursWorked: z.number().int().describe("The hours worked in the range: the scope's local hours in which a scan (also a refused one), a confirmation or a cancel happened."),
  unitsPerHour: z.number().describe('confirmedUnits divided by hoursWorked (2 decimals); 0 when nothing was worked.'),
  topProducts: z.array(z.object({ sku: z.string(), units: z.number().int() })).describe('The products with the most units confirmed in the range, most first (ties by sku); at most `products` entries.'),
  byUser: z
    .array(z.object({ userId: z.number().int(), scans: z.number().int(), units: z.number().int() }))
    .describe('Per sorter (the employee who scanned): successful scans and units confirmed in the range; most units first.'),
  refusalsByReason: z
    .array(z.object({ code: z.string().describe('The refusal\'s error code, as in the refused answer (e.g. barcode-not-recognized, wrong-slot).'), count: z.number().int() }))
    .describe(
      'Commands the service refused in the range, per refusal code: refused scans (as in failedScans) and refused confirms, cancels, swaps, releases, session starts and wall changes; most first (ties by code); codes with none are left out.',
    ),
});
const dailyDto = z.object({
  date: z.string().describe('The local day, YYYY-MM-DD.'),
  total: z.number().int(),
  hourly: z.array(z.object({ hour: z.number().int().describe('Local hour of the day, 0..23 (twice the same hour on the day clocks go back).'), count: z.number().int() })),
});
const rangeDto = z.object({
  from: z.string().describe('Start of the first day counted (UTC instant).'),
  to: z.string().describe('End of the last day counted, exclusive (UTC instant).'),
  total: z.number().int(),
  daily: z.array(z.object({ date: z.string().describe('Local day, YYYY-MM-DD'), count: z.number().int() })),
});
const wallScanDto = z.object({
  wallId: z.number().int(),
  from: z.string(),
  to: z.string(),
  scans: z.number().int().describe('Successful scans (items created).'),
  confirmed: z.number().int().describe('Confirmations: items confirmed (whatever their units).'),
  cancelled: z.number().int().describe('Items cancelled.'),
  failed: z.number().int().describe('Refused scans.'),
  byInputMethod: z
    .record(z.enum(BARCODE_INPUT_METHODS), z.number().int())
    .describe('Scan attempts (successful + refused) per barcodeInputMethod; every method is listed.'),
});
const perSlotDto = z.object({
  wallId: z.number().int(),
  from: z.string(),
  to: z.string(),
  slots: z
    .array(z.object({ crc: z.string(), position: z.number().int(), count: z.number().int() }))
    .describe('Every slot attached to the wall (zero when nothing counted), and slots since detached that counted in the range; by position.'),
});

const ACCESS = ['Manager', 'Admin'] as const;
const TAGS = ['Insights'];
const ERRORS = ['validation-failed', 'not-found'];
const wallPath = z.object({ id: idParam.describe('Wall id') });

/** GET /insights/walls/{id}/per-slot/{confirmed|scanned}: one count per slot of the wall. */
function perSlotRoute(what: string, operationId: string, summary: string, count: string, counter: 'confirmed_items' | 'scans') {
  return defineRoute({
    method: 'get',
    path: `/insights/walls/{id}/per-slot/${what}`,
    operationId,
    summary,
    description: `count = ${count}. ${HOUR_RULE} ${WALL_ZONE}`,
    tags: TAGS,
    access: ACCESS,
    params: wallPath,
    query: rangeQuery({}),
    response: perSlotDto,
    errors: ERRORS,
    handler: ({ em, auth, params, query }) => insights.getWallPerSlotStats(em, auth.clientId, params.id, query, counter),
  });
}

export const insightsRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: '/insights/stats',
    operationId: 'GetSortingStatistics',
    summary: 'Sorting figures of a range: scans, units, failures, sorted orders, speed, top products, per sorter, refusals by reason',
    description: `${HOUR_RULE} ${ZONE_RULE}`,
    tags: TAGS,
    access: ACCESS,
    query: rangeQuery({
      ...scopeFilters,
      products: z.coerce.number().int().min(0).max(1000).optional().transform((v) => v ?? 20).describe('How many top products to list, 0..1000. Default 20.'),
    }),
    response: sortingStatsDto,
    errors: ERRORS,
    handler: ({ em, auth, query }) => insights.getSortingStats(em, auth.clientId, query),
  }),
  defineRoute({
    method: 'get',
    path: '/insights/daily/orders',
    operationId: 'GetDailyOrderSortingStats',
    summary: 'Orders sorted per hour of one day',
    description: `count = orders whose slot became Complete in that local hour. The day is the local date of \`date\`. ${ZONE_RULE}`,
    tags: TAGS,
    access: ACCESS,
    query: z.object({ date: instant('The day (any instant of it, or YYYY-MM-DD)'), ...scopeFilters }),
    response: dailyDto,
    errors: ERRORS,
    handler: ({ em, auth, query }) => insights.getDailyOrderStats(em, auth.clientId, query),
  }),
  defineRoute({
    method: 'get',
    path: '/insights/daily/units',
    operationId: 'GetDailyUnitSortingStats',
    summary: 'Units confirmed per hour of one day',
    description: `count = units confirmed in that local hour (a confirm of N units counts N). The day is the local date of \`date\`. ${ZONE_RULE}`,
    tags: TAGS,
    access: ACCESS,
    query: z.object({ date: instant('The day (any instant of it, or YYYY-MM-DD)'), ...userFilter, ...scopeFilters }),
    response: dailyDto,
    errors: ERRORS,
    handler: ({ em, auth, query }) => insights.getDailyUnitStats(em, auth.clientId, query),
  }),
  defineRoute({
    method: 'get',
    path: '/insights/orders/sorted',
    operationId: 'GetOrderSortingStatsForDateRange',
    summary: 'Orders sorted per day of a range',
    description: `count = orders whose slot became Complete that local day. ${DAY_RULE} ${ZONE_RULE}`,
    tags: TAGS,
    access: ACCESS,
    query: rangeQuery(scopeFilters),
    response: rangeDto,
    errors: ERRORS,
    handler: ({ em, auth, query }) => insights.getOrderStatsForRange(em, auth.clientId, query),
  }),
  defineRoute({
    method: 'get',
    path: '/insights/units/sorted',
    operationId: 'GetUnitSortingStatsForDateRange',
    summary: 'Units confirmed per day of a range',
    description: `count = units confirmed that local day. ${DAY_RULE} ${ZONE_RULE}`,
    tags: TAGS,
    access: ACCESS,
    query: rangeQuery({ ...userFilter, ...scopeFilters }),
    response: rangeDto,
    errors: ERRORS,
    handler: ({ em, auth, query }) => insights.getUnitStatsForRange(em, auth.clientId, query),
  }),
  defineRoute({
    method: 'get',
    path: '/insights/walls/{id}/scanned',
    operationId: 'GetWallBarcodeScanningStatsForDateRange',
    summary: "A wall's barcode scans of a range: successful, confirmed, cancelled, refused, per input method",
    description: `${HOUR_RULE} ${WALL_ZONE}`,
    tags: TAGS,
    access: ACCESS,
    params: wallPath,
    query: rangeQuery({}),
    response: wallScanDto,
    errors: ERRORS,
    handler: ({ em, auth, params, query }) => insights.getWallScanningStats(em, auth.clientId, params.id, query),
  }),
  perSlotRoute(
    'confirmed',
    'GetWallBarcodeConfirmationStatsPerSlotForDateRange',
    'Confirmations per slot of a wall over a range',
    'items confirmed into the slot in the range (one per confirmation scan, whatever its units)',
    'confirmed_items',
  ),
  perSlotRoute(
    'scanned',
    'GetWallBarcodeScanningStatsPerSlotForDateRange',
    'Successful scans per slot of a wall over a range',
    'scans that lit the slot in the range (the slot a scan assigned; a later swap does not move it)',
    'scans',
  ),
];
