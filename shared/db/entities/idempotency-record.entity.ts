import { defineEntity, type InferEntity } from '@mikro-orm/core';

/** The first answer to a request with an Idempotency-Key, returned again to its retries. */
export const IdempotencyRecord = defineEntity({
  name: 'IdempotencyRecord',
  tableName: 'idempotency_record',
  primaryKeys: ['clientId', 'idempotencyKey'],
  properties: (p) => ({
    clientId: p.integer().primary(),
    idempotencyKey: p.text().primary(),
    operation: p.text(),
    requestHash: p.text(),
    status: p.integer(),
    body: p.json<unknown>(),
    createdAt: p.datetime().defaultRaw('now()').onCreate(() => new Date()),
  }),
});
export type IIdempotencyRecord = InferEntity<typeof IdempotencyRecord>;
