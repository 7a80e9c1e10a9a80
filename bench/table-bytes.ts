import type { Client as PgClient } from 'pg';

/** The tables that grow with every scan and confirm, and those the event pipeline writes. */
export const GROWING_TABLES = [
  'outbox_event',
  'audit_log',
  'stats_hour',
  'stats_day',
  'stats_counted_event',
  'webhook_delivery',
  'webhook_pending',
  'license_plate_document',
  'sort_box_item',
  'applied_command',
  'idempotency_record',
  'failed_job',
] as const;

export type TableBytes = Record<string, number>;

/** Each table's size on disk now: heap, TOAST and every index (pg_total_relation_size). */
export async function tableBytes(pg: Pick<PgClient, 'query'>, tables: readonly string[] = GROWING_TABLES): Promise<TableBytes> {
  const { rows } = await pg.query<{ t: string; bytes: string }>(
    `select t, coalesce(pg_total_relation_size(to_regclass(t)), 0)::text as bytes from unnest($1::text[]) as t`,
    [[...tables]],
  );
  return Object.fromEntries(rows.map((r) => [r.t, Number(r.bytes)]));
}

/**
 * Bytes per scan+confirm pair each table grew by between two readings (and their sum), rounded: what
 * the retention settings bound (docs/operations.md "Retention"). Dead row versions not yet vacuumed
 * count too, as they take disk until autovacuum makes their space reusable.
 */
export function bytesPerPair(before: TableBytes, after: TableBytes, pairs: number): TableBytes & { total: number } {
  const out: Record<string, number> = {};
  let total = 0;
  for (const [t, bytes] of Object.entries(after)) {
    const per = pairs > 0 ? (bytes - (before[t] ?? 0)) / pairs : NaN;
    out[t] = Math.round(per);
    total += per;
  }
  return { ...out, total: Math.round(total) };
}
