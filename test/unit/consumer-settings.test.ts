import { settingsOf } from '../../workers/pipeline/worker-kind';
import { EVENT_CONSUMERS } from '../support/event-consumers';
import type { ConsumerSettings } from '../../workers/pipeline/consumer-runner';

const base: ConsumerSettings = { batchSize: 500, pollMs: 1000, intervalMs: 500, attempts: 8, retryBaseMs: 1000, positionSaveMs: 0 };

describe("each consumer's settings over the process's", () => {
  it('the statistics gather 4 times longer and take 4 times larger batches; the others keep the process settings', () => {
    expect(settingsOf(EVENT_CONSUMERS.stats, base)).toEqual({ intervalMs: 2000, batchSize: 2000 });
    expect(settingsOf(EVENT_CONSUMERS.audit, base)).toEqual({});
    expect(settingsOf(EVENT_CONSUMERS.webhooks, base)).toEqual({});
  });

  it('a consumer that reads at every notification still does (the light gateway, saving its position now and then), and a process that reads at once makes the statistics read at once too', () => {
    expect(settingsOf(EVENT_CONSUMERS.lights, base)).toEqual({ intervalMs: 0, positionSaveMs: 500 });
    expect(settingsOf(EVENT_CONSUMERS.stats, { ...base, intervalMs: 0 }).intervalMs).toBe(0);
  });
});
