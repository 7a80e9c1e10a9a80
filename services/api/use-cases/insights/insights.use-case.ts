import type { EntityManager } from '@mikro-orm/postgresql';
import { BARCODE_INPUT_METHODS } from '../../../../shared/db/entities/sort-box-item.entity';
import { emSql } from '../../../../shared/db/orm-sql';
import { DIM } from '../../../../shared/statistics/rollup.queries';
import { dayRange, hourRange, rangeCounts, rangeCountsByDim, zeroCounts, type Counter } from './insights-range';
import { resolveScope, type InsightScope, type ScopeFilter } from './insights-scope';
import { dailyCounts, hourlyCounts, hoursWorked, wallSlots, type Counts } from './insights.queries';

/*
 * The /insights operations (docs/insights.md), answered from the roll-ups the statistics worker keeps
 * (workers/stats). Each figure is defined in docs/insights.md and in the OpenAPI descriptions.
 */

const iso = (d: Date) => d.toISOString();
const round = (v: number, digits: number) => Math.round(v * 10 ** digits) / 10 ** digits;

export interface RangeInput {
  from: Date;
  to: Date;
}

/** GET /insights/stats */
export async function getSortingStats(em: EntityManager, clientId: number, input: RangeInput & ScopeFilter & { products: number }) {
  const s = await resolveScope(em, clientId, input);
  const r = await hourRange(em, s.timeZone, input.from, input.to);
  // One statement: totals, per user, the top products and the refusals by reason; the hours worked beside it.
  const [byDim, [worked]] = await Promise.all([
    rangeCountsByDim(em, s, [DIM.total, DIM.user, DIM.sku, DIM.reason], r, { dim: DIM.sku, counter: 'confirmed_units', limit: input.products }),
    hoursWorked(emSql(em), { clientId: s.clientId, scope: s.scope, scopeId: s.scopeId, from: iso(r.from), to: iso(r.to) }),
  ]);
  const totals = byDim.get(DIM.total)!;
  const users = byDim.get(DIM.user)!;
  const skus = byDim.get(DIM.sku)!;
  const t = totals.get('') ?? zeroCounts();
  // The time worked, not the length of the range: a day with one busy hour is that hour's rate.
  const hours = worked?.hours ?? 0;
  return {
    from: iso(r.from),
    to: iso(r.to),
    scans: t.scans,
    confirmedUnits: t.confirmed_units,
    cancelledItems: t.cancelled_items,
    failedScans: t.failed_scans,
    sortedOrders: t.sorted_orders,
    averageSecondsToConfirm: t.confirmed_items > 0 ? round(t.confirm_ms / t.confirmed_items / 1000, 3) : null,
    hoursWorked: hours,
    unitsPerHour: hours > 0 ? round(t.confirmed_units / hours, 2) : 0,
    topProducts: [...skus.entries()].map(([sku, c]) => ({ sku, units: c.confirmed_units })),
    byUser: [...users.entries()]
      .filter(([, c]) => c.scans > 0 || c.confirmed_units > 0)
      .map(([userId, c]) => ({ userId: Number(userId), scans: c.scans, units: c.confirmed_units }))
      .sort((a, b) => b.units - a.units || b.scans - a.scans || a.userId - b.userId),
    refusalsByReason: refusalsByReason(byDim.get(DIM.reason)!),
  };
}

/** Refused commands per refusal code, most first (ties by code); codes with none are left out. */
function refusalsByReason(reasons: Map<string, Counts>) {
  return [...reasons.entries()]
    .filter(([, c]) => c.refusals > 0)
    .map(([code, c]) => ({ code, count: c.refusals }))
    .sort((a, b) => b.count - a.count || (a.code < b.code ? -1 : a.code > b.code ? 1 : 0));
}

/** One local day's figure per local hour (DailySortingStats). */
async function dailyHours(em: EntityManager, s: InsightScope, date: Date, counter: Counter, dim: number, key: string) {
  const day = await dayRange(em, s.timeZone, date, date);
  const rows = await hourlyCounts(emSql(em), counter, { tz: s.timeZone, from: iso(day.from), to: iso(day.to), clientId: s.clientId, scope: s.scope, scopeId: s.scopeId, dim, key });
  const hourly = rows.map((r) => ({ hour: r.hour, count: Number(r.count) }));
  return { date: day.day1, total: hourly.reduce((n, h) => n + h.count, 0), hourly };
}

/** GET /insights/daily/orders */
export async function getDailyOrderStats(em: EntityManager, clientId: number, input: { date: Date } & ScopeFilter) {
  const s = await resolveScope(em, clientId, input);
  return dailyHours(em, s, input.date, 'sorted_orders', DIM.total, '');
}

/** GET /insights/daily/units */
export async function getDailyUnitStats(em: EntityManager, clientId: number, input: { date: Date; userId?: number | null } & ScopeFilter) {
  const s = await resolveScope(em, clientId, input);
  const byUser = input.userId != null;
  return dailyHours(em, s, input.date, 'confirmed_units', byUser ? DIM.user : DIM.total, byUser ? String(input.userId) : '');
}

/** A figure per local day over a range of whole days (DateRangeSortingStats). */
async function rangeDays(em: EntityManager, s: InsightScope, input: RangeInput, counter: Counter, dim: number, key: string) {
  const r = await dayRange(em, s.timeZone, input.from, input.to);
  const rows = await dailyCounts(emSql(em), counter, { day1: r.day1, day2: r.day2, clientId: s.clientId, scope: s.scope, scopeId: s.scopeId, dim, key });
  const daily = rows.map((x) => ({ date: x.date, count: Number(x.count) }));
  return { from: iso(r.from), to: iso(r.to), total: daily.reduce((n, d) => n + d.count, 0), daily };
}

/** GET /insights/orders/sorted */
export async function getOrderStatsForRange(em: EntityManager, clientId: number, input: RangeInput & ScopeFilter) {
  const s = await resolveScope(em, clientId, input);
  return rangeDays(em, s, input, 'sorted_orders', DIM.total, '');
}

/** GET /insights/units/sorted */
export async function getUnitStatsForRange(em: EntityManager, clientId: number, input: RangeInput & ScopeFilter & { userId?: number | null }) {
  const s = await resolveScope(em, clientId, input);
  const byUser = input.userId != null;
  return rangeDays(em, s, input, 'confirmed_units', byUser ? DIM.user : DIM.total, byUser ? String(input.userId) : '');
}

/** GET /insights/walls/{id}/scanned */
export async function getWallScanningStats(em: EntityManager, clientId: number, wallId: number, input: RangeInput) {
  const s = await resolveScope(em, clientId, { wallId });
  const r = await hourRange(em, s.timeZone, input.from, input.to);
  const [totals, methods] = await Promise.all([rangeCounts(em, s, DIM.total, r), rangeCounts(em, s, DIM.method, r)]);
  const t = totals.get('') ?? zeroCounts();
  const byInputMethod: Record<string, number> = Object.fromEntries(BARCODE_INPUT_METHODS.map((m) => [m, 0]));
  // Counted exactly as `scans` (docs/insights.md): refused scans are in `failed`, not here.
  for (const [method, c] of methods) byInputMethod[method] = c.scans;
  return {
    wallId,
    from: iso(r.from),
    to: iso(r.to),
    scans: t.scans,
    confirmed: t.confirmed_items,
    cancelled: t.cancelled_items,
    failed: t.failed_scans,
    byInputMethod,
  };
}

/** GET /insights/walls/{id}/per-slot/(confirmed|scanned): every slot of the wall, and any other slot counted in the range. */
export async function getWallPerSlotStats(em: EntityManager, clientId: number, wallId: number, input: RangeInput, counter: 'scans' | 'confirmed_items') {
  const s = await resolveScope(em, clientId, { wallId });
  const r = await hourRange(em, s.timeZone, input.from, input.to);
  const [counts, attached] = await Promise.all([
    rangeCounts(em, s, DIM.slot, r),
    wallSlots(emSql(em), { clientId, wallId }),
  ]);
  const slots = new Map<string, { crc: string; position: number; count: number }>();
  for (const a of attached) slots.set(a.crc, { crc: a.crc, position: a.position, count: 0 });
  for (const [crc, c] of counts) {
    const slot = slots.get(crc);
    if (slot) slot.count = c[counter];
    else if (c[counter] !== 0) slots.set(crc, { crc, position: c.position ?? 0, count: c[counter] });
  }
  return {
    wallId,
    from: iso(r.from),
    to: iso(r.to),
    slots: [...slots.values()].sort((a, b) => a.position - b.position || a.crc.localeCompare(b.crc)),
  };
}
