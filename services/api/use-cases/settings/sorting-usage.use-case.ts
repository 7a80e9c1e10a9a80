import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * GET /admin/subscriptions/sorting/usage: the billing figure, the number of distinct slots that
 * received at least one confirmed unit in the calendar month (UTC). A slot counts once however many
 * orders passed through it; counted by crc, which the item keeps after its slot is detached.
 */
export async function sortingUsage(em: EntityManager, clientId: number, month: string): Promise<{ month: string; slotsUsed: number }> {
  // The bounds are computed by PostgreSQL: JavaScript's Date.UTC reads years 0..99 as 1900..1999,
  // and the month after 9999-12 has no four-digit ISO form.
  const rows = (await em.execute(
    `select count(distinct crc)::int as slots from sort_box_item
     where client_id = ? and status = 'Confirmed'
       and confirmed_at >= (?::date)::timestamp at time zone 'UTC'
       and confirmed_at < ((?::date) + interval '1 month') at time zone 'UTC'`,
    [clientId, `${month}-01`, `${month}-01`],
  )) as { slots: number }[];
  return { month, slotsUsed: rows[0]?.slots ?? 0 };
}

/** The current month, YYYY-MM in UTC. */
export function currentMonth(now = new Date()): string {
  return now.toISOString().slice(0, 7);
}
