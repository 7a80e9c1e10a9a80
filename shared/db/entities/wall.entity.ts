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
    /**
     * The fence of the wall's actor: moved by the database, never set by hand. The actor's write moves
     * it (and holds only if it still has the version it decided against); any other write to a row the
     * actor holds moves it by trigger (WALL_VERSIONED_TABLES, ./wall-versions.ts), as does any update
     * of this row.
     */
    version: p.bigint('number').default(0),
  }),
});
export type IWall = InferEntity<typeof Wall>;
