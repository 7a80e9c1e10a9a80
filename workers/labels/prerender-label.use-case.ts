import type { SqlRunner } from '../../shared/db/named-sql';
import type { TypedWallEvent } from '../../shared/events/event-schemas';
import type { LabelFormat } from '../../shared/labels/label-data';
import { plateForPrerender, recentlyPrintedFormats, storeLabelDocument } from './label.queries';
import { labelHash, toLabel } from '../../shared/labels/label-hash';
import { renderPdf } from '../../shared/labels/render-pdf';
import { renderZpl } from '../../shared/labels/render-zpl';

export type PrerenderResult = { plateNumber: string; formats: LabelFormat[] } | { skipped: 'no-such-order' };

/**
 * Renders an order's license plate ahead in `formats` and stores each with the digest of the data it
 * shows, so the shipper's print can answer it at once. Idempotent: a repeated render replaces the
 * documents with the same or newer ones (the print compares digests, so an older one left by a race is
 * never answered).
 */
export async function prerenderLicensePlate(db: SqlRunner, clientId: number, orderId: number, formats: readonly LabelFormat[]): Promise<PrerenderResult> {
  const [row] = await plateForPrerender(db, { clientId, orderId });
  if (!row) return { skipped: 'no-such-order' };
  const label = toLabel(row, orderId);
  const hash = labelHash(label);
  for (const format of formats) {
    const body = format === 'zpl' ? Buffer.from(renderZpl(label), 'utf8') : await renderPdf(label);
    await storeLabelDocument(db, { clientId, orderId, format, plateNumber: label.plateNumber, hash, body });
  }
  return { plateNumber: label.plateNumber, formats: [...formats] };
}

/**
 * The labels consumer's batch (its events are `sort-box.completed` only): each completed slot's order
 * gets its license plate rendered ahead in the formats its client printed within the last `days` days.
 * A client that never printed gets nothing ahead: its prints render on the API's threads when asked.
 */
export async function prerenderCompletedSlots(tx: SqlRunner, events: readonly TypedWallEvent[], days: number): Promise<number> {
  const completed = events.flatMap((e) => (e.type === 'sort-box.completed' ? [{ clientId: e.clientId, orderId: e.data.orderId }] : []));
  if (completed.length === 0 || days <= 0) return 0;
  const formats = new Map<number, LabelFormat[]>();
  for (const f of await recentlyPrintedFormats(tx, { clientIds: [...new Set(completed.map((c) => c.clientId))], days })) {
    formats.set(f.client_id, [...(formats.get(f.client_id) ?? []), f.format]);
  }
  let rendered = 0;
  for (const c of completed) {
    const wanted = formats.get(c.clientId);
    if (!wanted?.length) continue;
    const result = await prerenderLicensePlate(tx, c.clientId, c.orderId, wanted);
    if ('formats' in result) rendered += result.formats.length;
  }
  return rendered;
}
