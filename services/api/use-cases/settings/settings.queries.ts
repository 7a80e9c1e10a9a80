import { query } from '../../../../shared/db/named-sql';

/* The client's settings and its sorting usage (docs/api.md, subscriptions and security). */

/** A client made before settings existed gets its row with the defaults, so it can be locked and changed. */
export const ensureClientSettings = query<{ clientId: number }>('client-settings-ensure', `
insert into client_settings (client_id) values (:clientId::int) on conflict (client_id) do nothing`);

/** Whether the client may sort (no row: the default, enabled). */
export const sortingEnabled = query<{ clientId: number }, { sorting_enabled: boolean }>('client-settings-sorting-enabled', `
select sorting_enabled from client_settings where client_id = :clientId::int`);

/**
 * The billing figure: distinct slots (by crc, which the item keeps after its slot is detached) that
 * received a confirmed unit in the calendar month (UTC) starting on :monthStart. The bounds are computed
 * by PostgreSQL: JavaScript's Date.UTC reads years 0..99 as 1900..1999, and the month after 9999-12 has
 * no four-digit ISO form.
 */
export const slotsUsedInMonth = query<{ clientId: number; monthStart: string }, { slots: number }>('sorting-usage-slots', `
select count(distinct crc)::int as slots from sort_box_item
 where client_id = :clientId::int and status = 'Confirmed'
   and confirmed_at >= (:monthStart::date)::timestamp at time zone 'UTC'
   and confirmed_at < ((:monthStart::date) + interval '1 month') at time zone 'UTC'`);
