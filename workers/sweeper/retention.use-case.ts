import type { SqlRunner } from '../../shared/db/named-sql';
import type { AppConfig } from '../../shared/config/config';
import type { Logger } from '../../shared/logging/logger';
import {
  clientIds,
  deleteOldAppliedCommands,
  deleteOldAuditRecords,
  deleteOldCountedEvents,
  deleteOldFailedJobs,
  deleteOldLabelDocuments,
  deleteOldOutboxEvents,
  deleteOldSortBoxItems,
  deleteOldWebhookDeliveries,
  raiseRetentionHorizon,
  subscriptionIds,
} from './sweep.queries';

const DAY_MS = 86_400_000;

/** How long each kind of record is kept (docs/operations.md "Retention"), and the rows per statement. */
export interface RetentionSettings {
  outboxDays: number;
  auditDays: number;
  webhookDeliveryDays: number;
  labelDocumentDays: number;
  sortBoxItemDays: number;
  failedJobDays: number;
  commandRecordHours: number;
  batch: number;
}

export function retentionSettings(config: AppConfig): RetentionSettings {
  return {
    outboxDays: config.OUTBOX_RETENTION_DAYS,
    auditDays: config.AUDIT_RETENTION_DAYS,
    webhookDeliveryDays: config.WEBHOOK_DELIVERY_RETENTION_DAYS,
    labelDocumentDays: config.LABEL_DOCUMENT_RETENTION_DAYS,
    sortBoxItemDays: config.SORT_BOX_ITEM_RETENTION_DAYS,
    failedJobDays: config.FAILED_JOB_RETENTION_DAYS,
    commandRecordHours: config.COMMAND_RECORD_RETENTION_HOURS,
    batch: config.RETENTION_BATCH_SIZE,
  };
}

type Deleted = { n: number; newest: Date | null; examined?: number };
/** One statement of a kind: deletes at most `batch` old rows (of one client or subscription, when keyed). */
type Step = (db: SqlRunner, cutoff: Date, batch: number, key: number) => Promise<Deleted[]>;

interface Kind {
  kind: string;
  cutoff: (s: RetentionSettings, now: number) => Date;
  step: Step;
  /** The keys to go through one at a time (clients, subscriptions), for kinds whose index leads with one. */
  keys?: (db: SqlRunner) => Promise<number[]>;
}

const days = (n: number, now: number) => new Date(now - n * DAY_MS);
const clients = async (db: SqlRunner) => (await clientIds(db, {})).map((r) => r.id);

/** Every kind of record with a lifetime; the outbox first (its horizon bounds the statistics rebuild). */
function kinds(consumers: readonly string[]): Kind[] {
  return [
    { kind: 'outbox', cutoff: (s, now) => days(s.outboxDays, now), step: (db, cutoff, batch) => deleteOldOutboxEvents(db, { cutoff, batch, consumers: [...consumers] }) },
    { kind: 'counted-event', cutoff: (s, now) => days(s.outboxDays, now), step: (db, cutoff, batch) => deleteOldCountedEvents(db, { cutoff, batch }) },
    { kind: 'audit', cutoff: (s, now) => days(s.auditDays, now), keys: clients, step: (db, cutoff, batch, clientId) => deleteOldAuditRecords(db, { clientId, cutoff, batch }) },
    {
      kind: 'webhook-delivery',
      cutoff: (s, now) => days(s.webhookDeliveryDays, now),
      keys: async (db) => (await subscriptionIds(db, {})).map((r) => r.id),
      step: (db, cutoff, batch, subscriptionId) => deleteOldWebhookDeliveries(db, { subscriptionId, cutoff, batch }),
    },
    { kind: 'label-document', cutoff: (s, now) => days(s.labelDocumentDays, now), step: (db, cutoff, batch) => deleteOldLabelDocuments(db, { cutoff, batch }) },
    {
      kind: 'sort-box-item',
      cutoff: (s, now) => days(s.sortBoxItemDays, now),
      keys: clients,
      step: (db, cutoff, batch, clientId) => deleteOldSortBoxItems(db, { clientId, cutoff, batch }),
    },
    { kind: 'failed-job', cutoff: (s, now) => days(s.failedJobDays, now), step: (db, cutoff, batch) => deleteOldFailedJobs(db, { cutoff, batch }) },
    { kind: 'applied-command', cutoff: (s, now) => new Date(now - s.commandRecordHours * 3_600_000), step: (db, cutoff, batch) => deleteOldAppliedCommands(db, { cutoff, batch }) },
  ];
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * One pass of the retention: for each kind of record, statements of at most `batch` rows (each its own
 * short transaction, a short pause between them so the hot path's transactions interleave) until a
 * statement finds fewer than `batch` old rows or `budgetMs` is spent (each kind has one statement
 * anyway); what is left waits for the next sweep. Records the horizon of each kind deleted from (retention_horizon: the statistics rebuild reads
 * the outbox's). `consumers`: the outbox is kept until each of them has passed an event.
 */
export async function enforceRetention(
  db: SqlRunner,
  settings: RetentionSettings,
  opts: { consumers: readonly string[]; budgetMs: number; log?: Logger; now?: number; pauseMs?: number },
): Promise<Record<string, number>> {
  const now = opts.now ?? Date.now();
  const started = Date.now();
  const deleted: Record<string, number> = {};
  for (const k of kinds(opts.consumers)) {
    const cutoff = k.cutoff(settings, now);
    const keys = k.keys ? await k.keys(db) : [0];
    // Each kind gets one statement per pass at least, so a long backlog of one never starves the others.
    let statements = 0;
    kind: for (const key of keys) {
      for (;;) {
        if (statements > 0 && Date.now() - started > opts.budgetMs) break kind;
        const [r] = await k.step(db, cutoff, settings.batch, key);
        statements++;
        if (r.n > 0) {
          deleted[k.kind] = (deleted[k.kind] ?? 0) + r.n;
          await raiseRetentionHorizon(db, { kind: k.kind, before: cutoff });
        }
        // Fewer rows than a batch: the kind is done. A statement that kept some of a full batch (the outbox's
        // pending deliveries) goes on past them while it deletes any.
        if ((r.examined ?? r.n) < settings.batch || r.n === 0) break;
        await pause(opts.pauseMs ?? 10);
      }
    }
  }
  if (Object.keys(deleted).length) opts.log?.info({ deleted, ms: Date.now() - started }, 'retention: old records deleted');
  return deleted;
}
