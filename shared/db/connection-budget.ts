import type { AppConfig } from '../config/config';
import type { Logger } from '../logging/logger';
import type { SqlRunner } from './named-sql';
import { serverConnectionLimit } from './connection-budget.queries';

export interface BudgetCheck {
  /** SERVICE_PROCESSES × DATABASE_POOL_MAX: the most connections the deployment may open. */
  planned: number;
  budget: number | null;
  /** What the server behind DATABASE_URL accepts from ordinary users, when it could be read. */
  serverLimit: number | null;
  problems: string[];
}

/**
 * The PostgreSQL connection budget (docs/scaling.md): each process opens at most DATABASE_POOL_MAX
 * connections (the pool enforces it); SERVICE_PROCESSES of them together must fit in
 * DATABASE_MAX_CONNECTIONS, which in turn must fit in what the server (or the pooler's pool) accepts.
 * A process cannot count its siblings, so the deployment states their number and each process warns
 * at start when the plan does not fit; the hard limits stay with PostgreSQL and PgBouncer.
 */
export async function checkConnectionBudget(config: AppConfig, db: SqlRunner, log: Logger): Promise<BudgetCheck> {
  const planned = config.SERVICE_PROCESSES * config.DATABASE_POOL_MAX;
  const budget = config.DATABASE_MAX_CONNECTIONS ?? null;
  const problems: string[] = [];
  if (budget !== null && planned > budget) {
    problems.push(
      `SERVICE_PROCESSES (${config.SERVICE_PROCESSES}) × DATABASE_POOL_MAX (${config.DATABASE_POOL_MAX}) = ${planned} connections exceed DATABASE_MAX_CONNECTIONS (${budget}): lower DATABASE_POOL_MAX to ${Math.max(1, Math.floor(budget / config.SERVICE_PROCESSES))} or raise the budget`,
    );
  }
  let serverLimit: number | null = null;
  try {
    const rows = await serverConnectionLimit(db, {});
    serverLimit = Number(rows[0]?.n ?? NaN);
    if (!Number.isFinite(serverLimit)) serverLimit = null;
  } catch {
    serverLimit = null;
  }
  const wanted = budget ?? planned;
  if (serverLimit !== null && wanted > serverLimit) {
    problems.push(
      `${budget !== null ? `DATABASE_MAX_CONNECTIONS (${budget})` : `SERVICE_PROCESSES × DATABASE_POOL_MAX (${planned})`} exceeds what PostgreSQL accepts (max_connections − superuser_reserved_connections = ${serverLimit}); behind PgBouncer this is fine only if the pooler's pool is smaller`,
    );
  }
  for (const p of problems) log.warn({ planned, budget, serverLimit }, `database connection budget: ${p}`);
  return { planned, budget, serverLimit, problems };
}
