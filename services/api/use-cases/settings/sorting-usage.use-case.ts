import type { EntityManager } from '@mikro-orm/postgresql';
import { emSql } from '../../../../shared/db/orm-sql';
import { slotsUsedInMonth } from './settings.queries';

/**
 * GET /admin/subscriptions/sorting/usage: the billing figure, the number of distinct slots that
 * received at least one confirmed unit in the calendar month (UTC). A slot counts once however many
 * orders passed through it; counted by crc, which the item keeps after its slot is detached.
 */
export async function sortingUsage(em: EntityManager, clientId: number, month: string): Promise<{ month: string; slotsUsed: number }> {
  const rows = await slotsUsedInMonth(emSql(em), { clientId, monthStart: `${month}-01` });
  return { month, slotsUsed: rows[0]?.slots ?? 0 };
}

/** The current month, YYYY-MM in UTC. */
export function currentMonth(now = new Date()): string {
  return now.toISOString().slice(0, 7);
}
