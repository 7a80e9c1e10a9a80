import type { WallViewCache } from './use-cases/walls/wall-view-cache';
import type { AppConfig } from '../../shared/config/config';
import type { Logger } from '../../shared/logging/logger';
import type { Orm } from '../../shared/db/orm';
import type { FailureRateLimiter } from '../../shared/rate-limit/rate-limiter';
import type { CommandClient } from '../../shared/commands/command-client';
import type { LabelRenderer } from '../../shared/labels/render-pool';
import type { QueueInspection } from '../../shared/queue/queue-registry';
import type { WallEventsHub } from './events/wall-events.hub';
import type { EmployeeAccess } from './http/employee-access';

/** What the HTTP layer is given: built once per process by the composition root and passed in. */
export interface ApiDeps {
  config: AppConfig;
  log: Logger;
  orm: Orm;
  rateLimiter: FailureRateLimiter;
  /** Each token's employee as it stands now (active, roles, credentials version), cached a few seconds. */
  access: EmployeeAccess;
  /** Sends a command to its wall's ordered queue and waits for the answer of the partition's holder (one admission policy). */
  commands: CommandClient;
  /** Every BullMQ queue of the deployment, for the dashboard and the queue metrics. */
  queues: QueueInspection;
  /** What GET /walls/{id} last read of each wall, until it changes (use-cases/walls/wall-view-cache.ts); none: every read goes to PostgreSQL. */
  wallViews?: WallViewCache;
  /** Live wall events for hub connections (SSE, WebSocket). */
  events: WallEventsHub;
  /** Renders license plates off the event loop (worker threads). */
  labels: LabelRenderer;
  /** Each dependency's answer to a ping, for /readyz. */
  readiness: () => Promise<Record<string, boolean>>;
  /** Every answer of those checks as soon as it is known, whoever asked (the health listener's thread follows them); returns the unsubscribe. */
  onReadiness?: (listener: (checks: Record<string, boolean>) => void) => () => void;
}
