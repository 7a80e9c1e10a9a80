import type { Runtime } from '../../shared/runtime/runtime';
import { startEventConsumer } from '../pipeline/consumer-runner';
import { EVENT_CONSUMERS } from '../pipeline/consumers';

/**
 * Worker kind `audit`: one audit_log record per relayed event, refused commands included
 * (`command.refused`, isError). The consumer `audit` (workers/pipeline/consumers.ts) writes each batch's
 * records (their messages naming employees and walls) in one insert, in the transaction that moves its
 * position: each event is recorded exactly once.
 */
export async function startAuditWorker(runtime: Runtime): Promise<void> {
  await startEventConsumer(runtime, EVENT_CONSUMERS.audit, { name: 'audit worker' });
}
