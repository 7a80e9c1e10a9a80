import { Migration } from '@mikro-orm/migrations';

/**
 * Credentials stay private and access ends when it should.
 *
 * Session events name a session by its id, never by its token (docs/api.md §8): the stored session
 * events (replayed to reconnecting hubs) and audit data lose their token and gain the session id.
 *
 * Access ends when it should (docs/api.md §2, "Token lifetime tokens"): every access token carries
 * the employee's credentials version; deactivating an employee or changing its password raises it,
 * so tokens issued before are refused within seconds.
 */
export class Migration20261123010000_credentials_version extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table employee add column credentials_version int not null default 0;');
    this.addSql(`
update outbox_event o
   set data = jsonb_set(o.data #- '{session,token}', '{session,id}', to_jsonb(s.id))
  from sorter_session s
 where o.data -> 'session' ? 'token' and s.token = o.data -> 'session' ->> 'token';
update outbox_event set data = data #- '{session,token}' where data -> 'session' ? 'token';
update audit_log set data = data #- '{session,token}' where data -> 'session' ? 'token';
`);
    // The sweeper finds webhook attempts left pending (their outcome never recorded).
    this.addSql(`create index webhook_delivery_pending_idx on webhook_delivery (attempted_at) where status = 'pending';`);
  }

  override async down(): Promise<void> {
    this.addSql('drop index if exists webhook_delivery_pending_idx;');
    this.addSql('alter table employee drop column if exists credentials_version;');
  }
}
