import type { SqlRunner } from '../../shared/db/named-sql';
import type { TypedWallEvent } from '../../shared/events/event-schemas';
import { currentStoredDocument, toLabel } from '../../shared/labels/label-hash';
import { printPlate } from '../../shared/labels/label-print.queries';
import { insertPrintJob } from '../../shared/labels/print-job.queries';
import { renderZpl } from '../../shared/labels/render-zpl';
import { autoPrintWalls } from './print.queries';

/**
 * The `printing` consumer's batch (its events are `sort-box.completed` only): for each order completed
 * in a slot of a wall that prints by itself (`autoPrint` with a printer), the print POST
 * /license-plates/{crc}/zpl makes (plate number, audit row, the same bytes) and a print job for the
 * wall's printer, named by the event. In the transaction that moves the consumer's position: each
 * completion makes its job exactly once. Returns the number of jobs made.
 */
export async function autoPrintCompletedOrders(tx: SqlRunner, events: readonly TypedWallEvent[]): Promise<number> {
  const completed = events.flatMap((e) =>
    e.type === 'sort-box.completed' && e.wallId !== null ? [{ event: e, wallId: e.wallId, orderId: e.data.orderId, crc: e.data.sortBox.crc }] : [],
  );
  if (completed.length === 0) return 0;
  const walls = new Map((await autoPrintWalls(tx, { wallIds: [...new Set(completed.map((c) => c.wallId))] })).map((w) => [w.wall_id, w]));
  let made = 0;
  for (const c of completed) {
    const wall = walls.get(c.wallId);
    if (!wall || wall.client_id !== c.event.clientId) continue;
    const [row] = await printPlate(tx, { clientId: wall.client_id, orderId: c.orderId, userId: null, format: 'zpl' });
    if (!row) continue;
    const label = toLabel(row, c.orderId);
    // What /zpl answers: the document rendered ahead while it shows this data, else the same renderer's text.
    const body = currentStoredDocument(row, label) ?? Buffer.from(renderZpl(label), 'utf8');
    const [job] = await insertPrintJob(tx, {
      clientId: wall.client_id,
      printerId: wall.printer_id,
      wallId: c.wallId,
      orderId: c.orderId,
      crc: row.crc ?? c.crc,
      plateNumber: label.plateNumber,
      source: 'auto',
      eventId: c.event.id,
      userId: null,
      body,
    });
    if (job) made++;
  }
  return made;
}
