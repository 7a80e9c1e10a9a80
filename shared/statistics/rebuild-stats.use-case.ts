import { Client as PgClient } from 'pg';
import type { SqlRunner } from '../db/named-sql';
import { SqlClient } from '../db/sql-pool';
import {
  beginRebuild,
  commitRebuild,
  deleteDayBuckets,
  deleteHourBuckets,
  firstRebuildableUtcDay,
  lockStatistics,
  rebuildSettings,
  refillBuckets,
  rollbackRebuild,
  statsConsumerPosition,
  unlockStatistics,
  type RebuildScope,
} from './rebuild.queries';
import { STATS_LOCK_KEY } from './rollup.queries';

const DAY_MS = 86_400_000;
// Days per statement: each reads its events plus the margins, so longer chunks read less twice.
const CHUNK_DAYS = 7;

export interface RebuildRange {
  /** First UTC day to rebuild, YYYY-MM-DD. */
  from: string;
  /** The UTC day after the last one, YYYY-MM-DD (exclusive). */
  to: string;
  /** One client only; all clients when absent. */
  clientId?: number;
}

export interface RebuildResult {
  from: string;
  to: string;
  days: number;
  hourRows: number;
  dayRows: number;
  /** Outbox events of the range the roll-ups count now (the consumer adds the ones after its position). */
  events: number;
}

/**
 * The first UTC day a rebuild can restore: every event that falls into its buckets (in any time zone)
 * is still stored. Null when the outbox retention has not deleted anything yet.
 */
export async function firstRebuildableDay(db: SqlRunner): Promise<string | null> {
  const [row] = await firstRebuildableUtcDay(db, {});
  return row?.day ?? null;
}

const parseDay = (day: string) => new Date(`${day}T00:00:00Z`);

/**
 * `npm run cli -- stats rebuild`: recomputes the roll-ups of whole UTC days from the stored outbox
 * events (the one complete record: refused scans and completed slots exist nowhere else), as far back
 * as the outbox retention keeps them (firstRebuildableDay; an earlier range is refused). Runs in one
 * REPEATABLE READ transaction (one snapshot of the events for every day) while holding the advisory
 * lock the consumer takes per batch: the consumer waits, then adds the events after its position.
 */
export async function rebuildStats(
  databaseUrl: string,
  range: RebuildRange,
  onProgress: (done: number, total: number) => void = () => {},
): Promise<RebuildResult> {
  const start = parseDay(range.from);
  const end = parseDay(range.to);
  const days = Math.round((end.getTime() - start.getTime()) / DAY_MS);
  const pg = new PgClient({ connectionString: databaseUrl });
  await pg.connect();
  // One connection of its own, unnamed statements (a CLI run, planned with its values).
  const db = new SqlClient(pg, false);
  const result: RebuildResult = { from: range.from, to: range.to, days, hourRows: 0, dayRows: 0, events: 0 };
  try {
    await lockStatistics(db, { lockKey: STATS_LOCK_KEY });
    try {
      await beginRebuild(db, {});
      await rebuildSettings(db, {});
      const first = await firstRebuildableDay(db);
      if (first !== null && range.from < first) {
        throw new Error(
          `The outbox keeps the events of ${first} and later (OUTBOX_RETENTION_DAYS): a rebuild can start on ${first} at the earliest, not ${range.from}; the roll-ups of earlier days are kept as they are.`,
        );
      }
      // Everything the statistics consumer has counted (it waits on the lock held here meanwhile).
      const [consumer] = await statsConsumerPosition(db, {});
      const position = consumer?.position ?? '0';
      const scope: RebuildScope = range.clientId === undefined ? 'all' : 'client';
      const client = range.clientId === undefined ? {} : { clientId: Number(range.clientId) };
      onProgress(0, days);
      for (let i = 0; i < days; i += CHUNK_DAYS) {
        const n = Math.min(CHUNK_DAYS, days - i);
        const chunk = {
          chunkFrom: new Date(start.getTime() + i * DAY_MS).toISOString(),
          chunkTo: new Date(start.getTime() + (i + n) * DAY_MS).toISOString(),
          ...client,
        };
        await deleteHourBuckets(db, scope, chunk);
        await deleteDayBuckets(db, scope, chunk);
        const [filled] = await refillBuckets(db, scope, { ...chunk, rangeFrom: start.toISOString(), rangeTo: end.toISOString(), position });
        result.hourRows += filled!.hour_rows;
        result.dayRows += filled!.day_rows;
        result.events += filled!.events;
        onProgress(i + n, days);
      }
      await commitRebuild(db, {});
    } catch (err) {
      await rollbackRebuild(db, {}).catch(() => undefined);
      throw err;
    } finally {
      await unlockStatistics(db, { lockKey: STATS_LOCK_KEY }).catch(() => undefined);
    }
  } finally {
    await pg.end();
  }
  return result;
}
