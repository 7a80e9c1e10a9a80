import type { Logger } from '../logging/logger';

export interface JobBatcher<T> {
  /** Resolves once the record is written (with the batch it joined), rejects if it could not be. */
  add(record: T): Promise<void>;
}

/**
 * Collects the records of the jobs a worker runs concurrently (audit records, statistics events) and
 * writes them in one go: when `size` are waiting or `waitMs` after the first. Each job's promise settles with its batch, so a job
 * completes only once its record is committed. A batch that fails is written again one record at a
 * time, so one bad record fails only its own job (which the queue retries), not its neighbours.
 */
export function createJobBatcher<T>(
  write: (records: T[]) => Promise<unknown>,
  opts: { size: number; waitMs: number; log: Logger },
): JobBatcher<T> {
  let batch: { record: T; resolve: () => void; reject: (err: unknown) => void }[] = [];
  let timer: NodeJS.Timeout | null = null;

  const flush = async () => {
    if (timer) clearTimeout(timer);
    timer = null;
    const current = batch;
    batch = [];
    if (current.length === 0) return;
    try {
      await write(current.map((e) => e.record));
      for (const e of current) e.resolve();
    } catch (err) {
      if (current.length === 1) {
        current[0].reject(err);
        return;
      }
      opts.log.warn({ err, records: current.length }, 'audit batch failed; writing its records one by one');
      await Promise.all(
        current.map((e) =>
          write([e.record]).then(
            () => e.resolve(),
            (one) => e.reject(one),
          ),
        ),
      );
    }
  };

  return {
    add(record) {
      return new Promise<void>((resolve, reject) => {
        batch.push({ record, resolve, reject });
        if (batch.length >= opts.size) void flush();
        else if (!timer) timer = setTimeout(() => void flush(), opts.waitMs);
      });
    },
  };
}
