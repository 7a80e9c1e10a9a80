import { defineEntity, type InferEntity } from '@mikro-orm/core';
import type { FlowDirection } from '../../domain/display-layout';

export const WALL_WORKFLOWS = ['FreeSort', 'PicklistSort'] as const;
export type WallWorkflow = (typeof WALL_WORKFLOWS)[number];

export const Wall = defineEntity({
  name: 'Wall',
  tableName: 'wall',
  properties: (p) => ({
    id: p.integer().primary().autoincrement(),
    clientId: p.integer(),
    name: p.text(),
    isActive: p.boolean().default(true),
    maxSorters: p.smallint().default(6),
    warehouseId: p.integer().nullable(),
    workflow: p.text().$type<WallWorkflow>().default('FreeSort'),
    flowDirection: p.text().$type<FlowDirection>().default('LeftToRight'),
    segmentRows: p.integer().nullable(),
    segmentColumns: p.integer().nullable(),
    createdAt: p.datetime().defaultRaw('now()').onCreate(() => new Date()),
    updatedAt: p.datetime().defaultRaw('now()').onCreate(() => new Date()).onUpdate(() => new Date()),
  }),
});
export type IWall = InferEntity<typeof Wall>;
