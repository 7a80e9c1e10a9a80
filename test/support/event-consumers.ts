import { auditKind } from '../../workers/audit/audit.worker';
import type { EventConsumerName } from '../../workers/event-consumers';
import { labelsKind } from '../../workers/labels/labels.worker';
import { lightsKind } from '../../workers/lights/lights.worker';
import type { KindConsumer } from '../../workers/pipeline/worker-kind';
import { statsKind } from '../../workers/stats/stats.worker';
import { webhooksKind } from '../../workers/webhooks/webhooks.worker';

const all = [...auditKind.consumers, ...statsKind.consumers, ...labelsKind.consumers, ...webhooksKind.consumers, ...lightsKind.consumers];

/**
 * Every event consumer by name, as the kinds' code declares it (a test's own composition: a worker
 * process loads only the kinds it runs). The light gateway's handler needs `lights` (its engine) in
 * the context besides the runtime's settings and log.
 */
export const EVENT_CONSUMERS = Object.fromEntries(all.map((c) => [c.name, c])) as unknown as Record<EventConsumerName, KindConsumer>;
