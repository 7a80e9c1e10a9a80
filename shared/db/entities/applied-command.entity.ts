import { defineEntity, type InferEntity } from '@mikro-orm/core';

/**
 * A workflow command that was applied, with its answer: the worker's guard against applying twice, and
 * for a scan sent with an Idempotency-Key, the first answer under that key (returned again to its retries).
 */
export const AppliedCommand = defineEntity({
  name: 'AppliedCommand',
  tableName: 'applied_command',
  properties: (p) => ({
    commandId: p.uuid().primary(),
    seq: p.bigint('number').autoincrement(),
    clientId: p.integer(),
    wallId: p.integer(),
    name: p.text(),
    partition: p.integer(),
    jobId: p.bigint('number'),
    result: p.json<unknown>(),
    appliedAt: p.datetime().defaultRaw('now()').onCreate(() => new Date()),
    /** The sorter's Idempotency-Key (unique per client among the keyed records), or null. */
    idempotencyKey: p.text().nullable(),
    /** The keyed request's hash: the same key with another body is refused. */
    requestHash: p.text().nullable(),
  }),
});
export type IAppliedCommand = InferEntity<typeof AppliedCommand>;
