import type { Runtime } from '../../shared/runtime/runtime';
import { startEventConsumer } from '../pipeline/consumer-runner';
import { EVENT_CONSUMERS } from '../pipeline/consumers';

/**
 * Worker kind `stats`: the statistics consumer. Each batch of relayed events (refused commands
 * included) is added to the roll-ups in one statement, in the transaction that moves the consumer's
 * position (workers/pipeline/consumers.ts): each event is counted exactly once.
 */
export async function startStatsWorker(runtime: Runtime): Promise<void> {
  await startEventConsumer(runtime, EVENT_CONSUMERS.stats, { name: 'statistics worker' });
}
