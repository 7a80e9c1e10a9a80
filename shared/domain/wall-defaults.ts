import type { WallWorkflow } from '../db/entities/wall.entity';
import type { FlowDirection } from './display-layout';

/** A wall's settings as stored: what POST /walls leaves out takes these defaults. */
export interface WallSettings {
  isActive: boolean;
  maxSorters: number;
  warehouseId: number | null;
  workflow: WallWorkflow;
  flowDirection: FlowDirection;
  segmentRows: number | null;
  segmentColumns: number | null;
}

/** The one place a new wall's defaults are decided (the API's create and the test and bench fixtures). */
export function withWallDefaults(input: { [K in keyof WallSettings]?: WallSettings[K] | undefined }): WallSettings {
  return {
    isActive: input.isActive ?? true,
    maxSorters: input.maxSorters ?? 6,
    warehouseId: input.warehouseId ?? null,
    workflow: input.workflow ?? 'FreeSort',
    flowDirection: input.flowDirection ?? 'LeftToRight',
    segmentRows: input.segmentRows ?? null,
    segmentColumns: input.segmentColumns ?? null,
  };
}
