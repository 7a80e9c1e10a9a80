import type { WorkerKind } from '../shared/runtime/worker-kinds';

/**
 * Every consumer of the relayed events by name, with the worker kind that runs it (docs/architecture.md
 * "Event pipeline"): the names alone, so that what needs every consumer (the retention keeps each event
 * until every consumer here has passed it) loads none of their code. A consumer's handler, event types
 * and settings are in its kind's code (`consumers` of the kind's WorkerKindCode, loaded by
 * workers/registry.ts); test/unit/worker-kinds.test.ts checks that the two name the same consumers.
 * Adding one: its line here, its entry in its kind's code, its row in docs/architecture.md's table. A
 * new consumer starts at the end of the relayed events.
 */
export const EVENT_CONSUMER_KINDS = {
  audit: 'audit',
  stats: 'stats',
  labels: 'labels',
  printing: 'labels',
  webhooks: 'webhooks',
  lights: 'lights',
} as const satisfies Record<string, WorkerKind>;

export type EventConsumerName = keyof typeof EVENT_CONSUMER_KINDS;

export const EVENT_CONSUMER_NAMES = Object.keys(EVENT_CONSUMER_KINDS) as EventConsumerName[];
