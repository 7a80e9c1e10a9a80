import { parentPort } from 'node:worker_threads';
import type { LabelFormat, LicensePlateLabel } from './label-data';
import { renderPdf } from './render-pdf';
import { renderSlotLabels, type SlotLabelSheet } from './render-slot-labels';
import { renderZpl } from './render-zpl';

/** A license plate in a format, or a wall's sheet of slot labels (PDF). */
export type RenderRequest = { id: number; format: LabelFormat; label: LicensePlateLabel } | { id: number; slotLabels: SlotLabelSheet };
export type RenderReply = { id: number; ok: true; body: Uint8Array } | { id: number; ok: false; error: string };

function renderRequest(req: RenderRequest): Promise<Buffer> {
  if ('slotLabels' in req) return renderSlotLabels(req.slotLabels);
  return req.format === 'zpl' ? Promise.resolve(Buffer.from(renderZpl(req.label), 'utf8')) : renderPdf(req.label);
}

/** A render thread of the pool (render-pool.ts): takes one document at a time, answers its bytes. */
parentPort?.on('message', (req: RenderRequest) => {
  const render = renderRequest(req);
  render.then(
    (buf) => {
      // A copy that owns its whole ArrayBuffer, so it can be transferred instead of cloned.
      const body = new Uint8Array(buf);
      parentPort!.postMessage({ id: req.id, ok: true, body } satisfies RenderReply, [body.buffer]);
    },
    (err: unknown) => parentPort!.postMessage({ id: req.id, ok: false, error: err instanceof Error ? err.message : String(err) } satisfies RenderReply),
  );
});
