import { defineEntity, type InferEntity } from '@mikro-orm/core';

/** A tenant. Every other row carries its client_id; no request sees another client's rows. */
export const Client = defineEntity({
  name: 'Client',
  tableName: 'client',
  properties: (p) => ({
    id: p.integer().primary().autoincrement(),
    name: p.text(),
    team: p.text(),
    createdAt: p.datetime().defaultRaw('now()').onCreate(() => new Date()),
  }),
});
export type IClient = InferEntity<typeof Client>;
