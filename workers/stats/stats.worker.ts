import type { WorkerKindCode } from '../pipeline/worker-kind';
import { applyStatsEventRange } from './apply-events.use-case';

/**
 * Worker kind `stats`: the consumer `stats` keeps the statistics roll-ups for /insights, one statement
 * per batch, reading the outbox rows in the database. A batch costs about one write per bucket it
 * touches, and a floor's events share their buckets (the hour of a wall, a user, a sku), so it gathers
 * 4 times longer than the others: the roll-ups follow the floor by about 2 s (OUTBOX_CONSUMER_INTERVAL_MS × 4).
 */
export const statsKind: WorkerKindCode = {
  consumers: [{ name: 'stats', readsEvents: false, gather: 4, handle: async (batch, tx) => void (await applyStatsEventRange(tx, batch)) }],
};
