import { defineEntity, type InferEntity } from '@mikro-orm/core';

/** Ids come from the client's own systems, so they are unique per client: key (clientId, id). */
export const Warehouse = defineEntity({
  name: 'Warehouse',
  tableName: 'warehouse',
  primaryKeys: ['clientId', 'id'],
  properties: (p) => ({
    clientId: p.integer().primary(),
    id: p.integer().primary(),
    name: p.text(),
    address: p.text().nullable(),
    latitude: p.double().nullable(),
    longitude: p.double().nullable(),
    /** IANA time zone; insights count days and hours in it (UTC when unset). */
    timeZone: p.text().nullable(),
  }),
});
export type IWarehouse = InferEntity<typeof Warehouse>;
