import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { AppError } from '../errors/app-error';
import type { Logger } from '../logging/logger';
import type { LabelFormat, LicensePlateLabel } from './label-data';
import type { RenderReply, RenderRequest } from './label.thread';
import type { SlotLabelSheet } from './render-slot-labels';

export interface LabelRenderer {
  render(format: LabelFormat, label: LicensePlateLabel): Promise<Buffer>;
  /** A wall's slot labels as a PDF (render-slot-labels.ts). */
  renderSlotLabels(sheet: SlotLabelSheet): Promise<Buffer>;
  close(): Promise<void>;
}

/** What a request carries besides its id. */
type RenderJob = { format: LabelFormat; label: LicensePlateLabel } | { slotLabels: SlotLabelSheet };

interface Job {
  req: RenderRequest;
  resolve: (b: Buffer) => void;
  reject: (e: Error) => void;
}

interface Slot {
  worker: Worker;
  job: Job | null;
}

/**
 * Renders labels on worker threads, so a PDF never blocks the API's event loop. Threads start on the
 * first label and are replaced when one dies; requests beyond `maxQueued` waiting for a thread answer
 * 503 at once instead of growing a backlog.
 */
export function createLabelRenderPool(opts: { threads: number; maxQueued: number; log: Logger }): LabelRenderer {
  const slots: Slot[] = [];
  const queue: Job[] = [];
  let nextId = 1;
  let closed = false;

  const entry = join(__dirname, `label.thread${__filename.endsWith('.ts') ? '.ts' : '.js'}`);
  const spawn = (): Slot => {
    // Under tsx or jest the thread's TypeScript entry needs tsx's loader; compiled builds load the .js.
    // A label needs little heap; small limits keep each thread's share of the API's memory small.
    const resourceLimits = { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 4 };
    const worker = entry.endsWith('.ts')
      ? new Worker(`require('tsx/cjs'); require(${JSON.stringify(entry)});`, { eval: true, resourceLimits })
      : new Worker(entry, { resourceLimits });
    const slot: Slot = { worker, job: null };
    worker.on('message', (reply: RenderReply) => {
      const job = slot.job;
      if (!job || job.req.id !== reply.id) return;
      slot.job = null;
      if (reply.ok) job.resolve(Buffer.from(reply.body.buffer, reply.body.byteOffset, reply.body.byteLength));
      else job.reject(new Error(`label render failed: ${reply.error}`));
      pump();
    });
    worker.on('error', (err) => opts.log.error({ err }, 'label render thread failed'));
    worker.on('exit', (code) => {
      const i = slots.indexOf(slot);
      if (i >= 0) slots.splice(i, 1);
      slot.job?.reject(new Error(`label render thread exited (code ${code})`));
      slot.job = null;
      if (!closed) pump();
    });
    return slot;
  };

  function pump(): void {
    while (queue.length && !closed) {
      let slot = slots.find((s) => !s.job);
      if (!slot && slots.length < opts.threads) {
        slot = spawn();
        slots.push(slot);
      }
      if (!slot) return;
      const job = queue.shift()!;
      slot.job = job;
      slot.worker.postMessage(job.req);
    }
  }

  function submit(job: RenderJob): Promise<Buffer> {
    if (closed) return Promise.reject(new AppError('service-unavailable', 'The service is shutting down; print the label again in a moment.', { headers: { 'Retry-After': '1' } }));
    if (queue.length >= opts.maxQueued) {
      return Promise.reject(
        new AppError('service-unavailable', `${queue.length} labels are waiting to be rendered; print again in a moment.`, { headers: { 'Retry-After': '1' } }),
      );
    }
    return new Promise<Buffer>((resolve, reject) => {
      queue.push({ req: { id: nextId++, ...job }, resolve, reject });
      pump();
    });
  }

  return {
    render: (format, label) => submit({ format, label }),
    renderSlotLabels: (sheet) => submit({ slotLabels: sheet }),
    async close() {
      closed = true;
      for (const job of queue.splice(0)) job.reject(new AppError('service-unavailable', 'The service is shutting down.'));
      await Promise.all(slots.map((s) => s.worker.terminate()));
    },
  };
}
