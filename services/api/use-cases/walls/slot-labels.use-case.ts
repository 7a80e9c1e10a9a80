import type { EntityManager } from '@mikro-orm/postgresql';
import { OrmSql } from '../../../../shared/db/orm-sql';
import { notFound } from '../../../../shared/errors/app-error';
import type { LabelRenderer } from '../../../../shared/labels/render-pool';
import { wallView } from './wall-view.queries';

/**
 * GET /walls/{id}/slot-labels.pdf: the wall's slots (by position) as a sheet of barcode labels, each
 * slot's A- and B- barcodes with its number and crc (docs/api.md §5). Rendered on the label threads,
 * like the license plates: a wall of a thousand slots is a document of 125 pages.
 */
export async function slotLabelsPdf(em: EntityManager, labels: Pick<LabelRenderer, 'renderSlotLabels'>, clientId: number, wallId: number, prepared = true): Promise<{ wallName: string; pdf: Buffer }> {
  const [row] = await wallView(OrmSql.of(em, prepared), { clientId, wallId });
  if (!row) throw notFound(`Wall ${wallId}`);
  const slots = row.slots.map((s) => ({ position: s.position, crc: s.crc }));
  return { wallName: row.wall.name, pdf: await labels.renderSlotLabels({ wallName: row.wall.name, slots }) };
}
