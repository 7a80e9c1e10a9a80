import { parentPort } from 'node:worker_threads';
import type { LabelFormat, LicensePlateLabel } from './label-data';
import { renderPdf } from './render-pdf';
import { renderZpl } from './render-zpl';

export interface RenderRequest {
  id: number;
  format: LabelFormat;
  label: LicensePlateLabel;
}
export type RenderReply = { id: number; ok: true; body: Uint8Array } | { id: number; ok: false; error: string };

/** A render thread of the pool (render-pool.ts): takes one label at a time, answers the document's bytes. */
parentPort?.on('message', (req: RenderRequest) => {
  const render = req.format === 'zpl' ? Promise.resolve(Buffer.from(renderZpl(req.label), 'utf8')) : renderPdf(req.label);
  render.then(
    (buf) => {
      // A copy that owns its whole ArrayBuffer, so it can be transferred instead of cloned.
      const body = new Uint8Array(buf);
      parentPort!.postMessage({ id: req.id, ok: true, body } satisfies RenderReply, [body.buffer]);
    },
    (err: unknown) => parentPort!.postMessage({ id: req.id, ok: false, error: err instanceof Error ? err.message : String(err) } satisfies RenderReply),
  );
});
