import { defineEntity, type InferEntity } from '@mikro-orm/core';

/** A workflow command that was applied, with its answer: the worker's guard against applying twice. */
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
  }),
});
export type IAppliedCommand = InferEntity<typeof AppliedCommand>;
