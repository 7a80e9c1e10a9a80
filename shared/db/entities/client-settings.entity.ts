import { defineEntity, type InferEntity } from '@mikro-orm/core';

export const PIN_ENFORCEMENTS = ['client', 'server'] as const;
export type PinEnforcement = (typeof PIN_ENFORCEMENTS)[number];

/** Per-client switches: the PIN (hash only), its enforcement, and the sorting subscription. */
export const ClientSettings = defineEntity({
  name: 'ClientSettings',
  tableName: 'client_settings',
  properties: (p) => ({
    clientId: p.integer().primary().autoincrement(false),
    pinHash: p.text().nullable(),
    pinLength: p.integer().default(0),
    pinEnforcement: p.text().$type<PinEnforcement>().default('client'),
    sortingEnabled: p.boolean().default(true),
    updatedAt: p.datetime().defaultRaw('now()').onCreate(() => new Date()).onUpdate(() => new Date()),
  }),
});
export type IClientSettings = InferEntity<typeof ClientSettings>;
