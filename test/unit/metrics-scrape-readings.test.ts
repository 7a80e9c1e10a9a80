import { metricsRegistry, setOperationalSources, type OperationalSources } from '../../services/api/http/metrics';

/** Sources that count their reads; each read answers a new figure, so a stale answer shows. */
function countingSources() {
  const reads = { outbox: 0, printers: 0 };
  const sources: OperationalSources = {
    queueCounts: async () => [],
    outbox: async () => {
      reads.outbox++;
      return { lagSeconds: reads.outbox, unpublished: 10 * reads.outbox };
    },
    webhookFailures: async () => 0,
    lightControllers: async () => ({ online: 0, offline: 0 }),
    consumers: async () => [],
    printers: async () => {
      reads.printers++;
      return { ok: 1, failing: 0, queuedJobs: reads.printers, oldestQueuedSeconds: 100 * reads.printers };
    },
  };
  return { reads, sources };
}

const figure = (text: string, name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);

describe('scrape-time readings shared by several gauges', () => {
  it('reads the outbox and the printers once per scrape, and afresh on the next scrape', async () => {
    const { reads, sources } = countingSources();
    const unset = setOperationalSources(sources);
    try {
      const first = await metricsRegistry.metrics();
      expect(reads).toEqual({ outbox: 1, printers: 1 });
      expect([figure(first, 'outbox_lag_seconds'), figure(first, 'outbox_unpublished_events')]).toEqual([1, 10]);
      expect([figure(first, 'print_jobs_queued'), figure(first, 'print_job_oldest_queued_seconds')]).toEqual([1, 100]);

      const second = await metricsRegistry.metrics();
      expect(reads).toEqual({ outbox: 2, printers: 2 });
      expect([figure(second, 'outbox_lag_seconds'), figure(second, 'outbox_unpublished_events')]).toEqual([2, 20]);
      expect([figure(second, 'print_jobs_queued'), figure(second, 'print_job_oldest_queued_seconds')]).toEqual([2, 200]);
    } finally {
      unset();
    }
  });
});
