import { randomUUID } from 'node:crypto';
import IORedis from 'ioredis';
import { wallEventsChannel, type WallEvent } from '../../shared/events/channels';
import { failedJobRecorder } from '../../shared/queue/failed-job';
import { PermanentJobFailure, createJobQueue, startJobWorker, type JobAttempt, type JobQueueSettings, type JobRequest } from '../../shared/queue/job-queue';
import { eventBatchJobId, jobOptions } from '../../shared/queue/jobs';
import { openQueueInspection } from '../../shared/queue/queue-registry';
import { auditBatchHandler } from '../../workers/audit/audit.worker';
import { OUTBOX_CONSUMERS } from '../../workers/outbox/consumers';
import { relayOnce } from '../../workers/outbox/relay.use-case';
import { newTenant, startTestApi, waitFor, type TestApi } from '../support/test-api';

describe('event pipeline: job module, failure policy, schedulers, outbox fan-out', () => {
  let api: TestApi;
  let settings: JobQueueSettings;
  beforeAll(async () => {
    // The back-up poll is a minute: an event relayed within seconds was woken by NOTIFY.
    process.env.OUTBOX_POLL_MS = '60000';
    api = await startTestApi({ workers: ['outbox'] });
    delete process.env.OUTBOX_POLL_MS;
    settings = { ...api.runtime.queueSettings, prefix: `${api.runtime.config.QUEUE_PREFIX}:pipeline-${randomUUID().slice(0, 6)}`, webhookRetryBaseMs: 10 };
  });
  afterAll(async () => {
    await api.close();
  });
  const em = () => api.runtime.orm.em.fork();
  const deps = () => ({ log: api.runtime.log, recordFailure: failedJobRecorder(em) });
  const event = (clientId: number, type = 'session.started'): WallEvent => ({ id: randomUUID(), type, occurredAt: new Date().toISOString(), clientId, wallId: 1, data: {} });
  const failedJob = async (jobId: string) => (await em().execute<{ job_name: string; error: string; attempts: number }[]>('select job_name, error, attempts from failed_job where job_id = ?', [jobId]))[0];

  it('a worker starts only with exactly one handler per job name of its queue', async () => {
    await expect(startJobWorker(settings, 'webhooks', {}, deps())).rejects.toThrow(
      "Worker for queue 'webhooks' cannot start: no handler for job(s) webhook.deliver. Every job name needs exactly one handler.",
    );
    await expect(startJobWorker(settings, 'audit', { 'audit.batch': async () => undefined, 'webhook.deliver': async () => undefined }, deps())).rejects.toThrow(
      /handler\(s\) for job\(s\) of other queues: webhook\.deliver/,
    );
  });

  it('failure policy: retried with backoff until it succeeds; a permanent failure is recorded in failed_job at once', async () => {
    const attempts = new Map<string, JobAttempt[]>();
    const queue = createJobQueue(settings);
    const worker = await startJobWorker(
      settings,
      'webhooks',
      {
        'webhook.deliver': async (data, attempt) => {
          const list = attempts.get(data.event.id) ?? [];
          list.push(attempt);
          attempts.set(data.event.id, list);
          if (data.subscriptionId === 1 && attempt.attempt < 3) throw new Error('receiver answered 500');
          if (data.subscriptionId === 2) throw new PermanentJobFailure('subscription 2 no longer exists');
        },
      },
      deps(),
    );
    try {
      const flaky = event(1);
      const gone = event(1);
      await queue.enqueueBulk([
        { name: 'webhook.deliver', data: { subscriptionId: 1, clientId: 1, event: flaky } },
        { name: 'webhook.deliver', data: { subscriptionId: 2, clientId: 1, event: gone } },
      ]);
      await waitFor(() => attempts.get(flaky.id)?.length === 3, { what: 'three attempts' });
      expect(attempts.get(flaky.id)!.map((a) => [a.attempt, a.maxAttempts, a.retryDelayMs])).toEqual([[1, 12, 10], [2, 12, 20], [3, 12, 40]]);
      const goneJobId = jobOptions('webhook.deliver', { subscriptionId: 2, clientId: 1, event: gone }, { webhookRetryBaseMs: 10 }).jobId!;
      expect(goneJobId).toBe(`webhook_${gone.id}_2`);
      const row = await waitFor(() => failedJob(goneJobId), { what: 'the failed job in PostgreSQL' });
      expect(row).toEqual({ job_name: 'webhook.deliver', error: 'subscription 2 no longer exists', attempts: 1 });
      expect(attempts.get(gone.id)).toHaveLength(1);
      expect(await failedJob(jobOptions('webhook.deliver', { subscriptionId: 1, clientId: 1, event: flaky }, {}).jobId!)).toBeUndefined();
    } finally {
      await worker.close();
      await queue.close();
    }
  });

  it('the same batch enqueued twice (a relay repeating it) runs once: its id comes from its events; another batch runs', async () => {
    const runs: string[][] = [];
    const queue = createJobQueue(settings);
    const worker = await startJobWorker(settings, 'audit', { 'audit.batch': async ({ events }) => void runs.push(events.map((e) => e.id)) }, { ...deps(), concurrency: 4 });
    try {
      const [a, b, c] = [event(1), event(1), event(1)];
      await queue.enqueue({ name: 'audit.batch', data: { events: [a, b] } });
      await queue.enqueue({ name: 'audit.batch', data: { events: [a, b] } });
      // Claimed again after a crash with an event committed meanwhile: another batch, another id.
      await queue.enqueue({ name: 'audit.batch', data: { events: [a, c, b] } });
      await waitFor(() => runs.some((r) => r.includes(c.id)), { what: 'the later batch' });
      expect(runs.filter((r) => r.join() === [a.id, b.id].join())).toHaveLength(1);
      expect(eventBatchJobId('audit', [a, b])).toBe(eventBatchJobId('audit', [{ id: a.id }, { id: b.id }]));
      expect(eventBatchJobId('audit', [a, b])).not.toBe(eventBatchJobId('audit', [a, c, b]));
      expect(eventBatchJobId('audit', [a, b])).not.toBe(eventBatchJobId('stats', [a, b]));
    } finally {
      await worker.close();
      await queue.close();
    }
  });

  it("a per-event job of the previous version (`audit.record`, `{ event }`) still queued at an upgrade is handled as a batch of one", async () => {
    const runs: string[][] = [];
    const worker = await startJobWorker(settings, 'audit', { 'audit.batch': async ({ events }) => void runs.push(events.map((e) => e.id)) }, deps());
    const inspection = openQueueInspection({ ...settings, partitions: 0 });
    const legacy = inspection.queues().find((q) => q.name === '{audit}')!;
    try {
      const e = event(1);
      await legacy.add('audit.record', { event: e }, { jobId: `audit_${e.id}` });
      await waitFor(() => runs.some((r) => r.join() === e.id), { what: 'the legacy job handled' });
    } finally {
      await worker.close();
      await inspection.close();
    }
  });

  it('a batch with a bad event: the others are written at once; the job is narrowed to the bad one, retried, then recorded in failed_job', async () => {
    const t = await newTenant(api, 'Bad batch');
    const fast = { ...settings, eventRetryBaseMs: 1 };
    const queue = createJobQueue(fast);
    const worker = await startJobWorker(fast, 'audit', { 'audit.batch': auditBatchHandler(api.runtime.ormSql, em, api.runtime.log) }, deps());
    try {
      const [first, last] = [event(t.clientId), event(t.clientId)];
      // Passes the job schema, fails the audit insert (event_id is a uuid).
      const bad = { ...event(t.clientId), id: 'not-a-uuid' };
      const data = { events: [first, bad, last] };
      await queue.enqueue({ name: 'audit.batch', data });
      const jobId = jobOptions('audit.batch', data, fast).jobId!;
      const row = await waitFor(() => failedJob(jobId), { what: 'the bad event in failed_job', timeoutMs: 20_000 });
      expect(row).toMatchObject({ job_name: 'audit.batch', attempts: 11 });
      expect(row.error).toMatch(/invalid input syntax for type uuid/);
      const [{ data: recorded }] = await em().execute<{ data: unknown }[]>('select data from failed_job where job_id = ?', [jobId]);
      expect(recorded).toEqual({ events: [bad] });
      const audited = await em().execute<{ event_id: string }[]>('select event_id from audit_log where client_id = ? order by id', [t.clientId]);
      expect(audited.map((r) => r.event_id)).toEqual([first.id, last.id]);
    } finally {
      await worker.close();
      await queue.close();
    }
  });

  it('timers are job schedulers: many processes upserting make one scheduler; each interval runs once', async () => {
    const a = createJobQueue(settings);
    const b = createJobQueue(settings);
    const ran: string[] = [];
    const handler = { 'sessions.sweep': async (_d: object, attempt: JobAttempt) => void ran.push(attempt.jobId) };
    const w1 = await startJobWorker(settings, 'maintenance', handler, deps());
    const w2 = await startJobWorker(settings, 'maintenance', handler, deps());
    const redis = new IORedis(settings.redisUrl);
    try {
      await a.upsertSchedulers({ sessionSweepMs: 150 });
      await b.upsertSchedulers({ sessionSweepMs: 150 });
      expect(await redis.zcard(`${settings.prefix}:{maintenance}:repeat`)).toBe(1);
      await waitFor(() => ran.length >= 3, { what: 'three sweeps' });
      expect(new Set(ran).size).toBe(ran.length);
    } finally {
      await Promise.all([w1.close(), w2.close()]);
      await Promise.all([a.close(), b.close()]);
      redis.disconnect();
    }
  });

  it('the relay wakes on NOTIFY, fans out each batch once per consumer (its filter applied) with ids from the events, sends hubs every event and webhooks the public ones only', async () => {
    const t = await newTenant(api, 'Relay');
    const [{ id: subId }] = await em().execute<{ id: number }[]>(
      `insert into webhook_subscription (client_id, url, events, secret) values (?, 'https://hooks.example.com/x', '{*}', 'whsec_x') returning id`,
      [t.clientId],
    );
    const wallId = 1_000_000 + t.clientId;
    const prefix = api.runtime.config.QUEUE_PREFIX;
    const redis = new IORedis(api.runtime.config.REDIS_URL);
    const inspection = openQueueInspection({ redisUrl: api.runtime.config.REDIS_URL, prefix, partitions: 0 });
    const sub = new IORedis(api.runtime.config.REDIS_URL);
    const seen: WallEvent[] = [];
    sub.on('message', (_c, m) => seen.push(JSON.parse(m) as WallEvent));
    await sub.subscribe(wallEventsChannel(prefix, wallId));
    const [started, refused, later] = [randomUUID(), randomUUID(), randomUUID()];
    try {
      await em().execute(
        `insert into outbox_event (event_id, client_id, wall_id, type, data) values (?, ?, ?, 'command.refused', '{"command":"item.scan"}'), (?, ?, ?, 'session.started', '{}')`,
        [refused, t.clientId, wallId, started, t.clientId, wallId],
      );
      await em().execute(`insert into outbox_event (event_id, client_id, wall_id, type, data) values (?, ?, ?, 'wall.updated', '{}')`, [later, t.clientId, wallId]);
      // The back-up poll is a minute away: only NOTIFY can make this quick.
      await waitFor(() => seen.length >= 3, { what: 'the hub events', timeoutMs: 5000 });
      // Hubs get every event of the wall, the refusal too (webhooks only the public ones).
      expect(seen.map((e) => [e.id, e.type])).toEqual([[refused, 'command.refused'], [started, 'session.started'], [later, 'wall.updated']]);
      // Hubs and queues get a batch (at once) before it is marked relayed.
      await waitFor(
        async () => Number((await em().execute<{ n: string }[]>(`select count(*) as n from outbox_event where event_id in (?) and published_at is not null`, [[started, refused, later]]))[0].n) === 3,
        { what: 'the batch marked relayed', timeoutMs: 5000 },
      );
      const exists = (queue: string, jobId: string) => redis.exists(`${prefix}:${queue}:${jobId}`);
      const ours = new Set<string>([started, refused, later]);
      // No consumer runs here: the relayed jobs wait in their queues. Each event is in one batch job per
      // consumer, in commit order; labels takes only sort-box.completed, so none of these.
      const batched = async (consumer: string) => {
        const q = inspection.queues().find((queue) => queue.name === `{${consumer}}`)!;
        const jobs = await q.getJobs(['waiting', 'prioritized', 'delayed']);
        const ids = jobs.sort((a, b) => a.timestamp - b.timestamp).flatMap((j) => (j.data as { events: WallEvent[] }).events.map((e) => e.id));
        for (const j of jobs) expect(j.id).toBe(eventBatchJobId(consumer as 'audit', (j.data as { events: WallEvent[] }).events));
        return ids.filter((id) => ours.has(id));
      };
      expect(await batched('audit')).toEqual([refused, started, later]);
      expect(await batched('stats')).toEqual([refused, started, later]);
      expect(await batched('labels')).toEqual([]);
      expect(await batched('lights')).toEqual([refused, later]);
      expect(await exists('{webhook-deliveries}', `webhook_${started}_${subId}`)).toBe(1);
      expect(await exists('{webhook-deliveries}', `webhook_${later}_${subId}`)).toBe(1);
      expect(await exists('{webhook-deliveries}', `webhook_${refused}_${subId}`)).toBe(0);

      // As after a relay crash before its commit: the same events again give one batch job per consumer
      // (with the ids a repeat of the same batch gets), and a webhook job per public event.
      await em().execute(`update outbox_event set published_at = null where event_id in (?)`, [[started, refused, later]]);
      const jobs: JobRequest[] = [];
      const published: WallEvent[] = [];
      await waitFor(
        async () => {
          await relayOnce(api.runtime.ormSql, async (e) => void published.push(...e), async (j) => void jobs.push(...j), OUTBOX_CONSUMERS);
          return (await em().execute(`select 1 from outbox_event where event_id in (?) and published_at is null`, [[started, refused, later]])).length === 0;
        },
        { what: 'the events relayed again' },
      );
      const batches = jobs.filter((j) => j.name !== 'webhook.deliver').map((j) => [j.name, (j.data as { events: WallEvent[] }).events.filter((e) => ours.has(e.id)).map((e) => e.id)]);
      expect(batches.filter(([, ids]) => ids.length > 0)).toEqual([
        ['audit.batch', [refused, started, later]],
        ['stats.batch', [refused, started, later]],
        // The light gateway takes the events that can change a light: a refusal (a wrong slot flashes) and a wall change.
        ['lights.batch', [refused, later]],
      ]);
      for (const j of jobs) if (j.name !== 'webhook.deliver') expect(jobOptions(j.name, j.data as never, {}).jobId).toBe(eventBatchJobId(j.name.split('.')[0] as 'audit', (j.data as { events: WallEvent[] }).events));
      const ids = jobs.filter((j) => j.name === 'webhook.deliver').map((j) => jobOptions(j.name, j.data as never, {}).jobId).filter((id) => [started, refused, later].some((e) => id!.includes(e)));
      expect(ids.sort()).toEqual([`webhook_${started}_${subId}`, `webhook_${later}_${subId}`].sort());
      expect(published.filter((e) => e.clientId === t.clientId).map((e) => e.type)).toEqual(['command.refused', 'session.started', 'wall.updated']);
    } finally {
      sub.disconnect();
      redis.disconnect();
      await inspection.close();
    }
  });
});
