import { query } from '../../../../shared/db/named-sql';

/* Single-use sign-in links (docs/api.md, "Auto-login"): a token is stored only as its SHA-256. */

/** The employee's spent tokens go when it asks for a new one, so the table stays small without a sweep. */
export const deleteExpiredTokens = query<{ employeeId: number }>('auto-login-delete-expired', `
delete from auto_login_token where employee_id = :employeeId::int and expires_at < now()`);

export const insertToken = query<{ tokenHash: Buffer; clientId: number; employeeId: number; app: string; returnUrl: string; ttlSeconds: number }>(
  'auto-login-insert',
  `
insert into auto_login_token (token_hash, client_id, employee_id, app, return_url, expires_at)
values (:tokenHash::bytea, :clientId::int, :employeeId::int, :app::text, :returnUrl::text, now() + make_interval(secs => :ttlSeconds::int))`,
);

/** Marks the token used in one statement, so of two racing redeems exactly one gets a row back. */
export const redeemToken = query<{ tokenHash: Buffer }, { client_id: number; employee_id: number }>('auto-login-redeem', `
update auto_login_token set used_at = now()
 where token_hash = :tokenHash::bytea and used_at is null and expires_at > now()
returning client_id, employee_id`);
