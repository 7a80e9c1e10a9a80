import { Migration } from '@mikro-orm/migrations';

/**
 * Auto-login links (docs/api.md §9): single-use sign-in tokens, stored as their SHA-256 only. A token
 * is redeemed by one `update ... where used_at is null returning`, so two racing redeems cannot both win.
 */
export class Migration20261123040100_auto_login_tokens extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table auto_login_token (
  token_hash bytea primary key,
  client_id int not null references client (id) on delete cascade,
  employee_id int not null references employee (id) on delete cascade,
  app text not null,
  return_url text not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  used_at timestamptz null
);
create index auto_login_token_employee_idx on auto_login_token (employee_id, expires_at);
`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists auto_login_token;');
  }
}
