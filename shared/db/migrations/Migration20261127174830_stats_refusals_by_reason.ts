import { Migration } from '@mikro-orm/migrations';

/**
 * Refusals by reason (docs/architecture.md "Statistics", docs/insights.md): the roll-ups count every
 * refused command (`command.refused`) in a new counter `refusals`, and keep them per refusal code in
 * a new dimension 5 (`reason`, dim_key = the code) of every scope. Adding a column with a constant
 * default changes no stored row; the widened dimension check is added NOT VALID and then validated.
 * The whole migration runs in one transaction, so the ACCESS EXCLUSIVE locks of its ALTER TABLEs are
 * held until it commits: the statistics consumer's reads and writes of both tables wait for the scan
 * that validates the check (short on tables of roll-ups; the consumer catches up). Days counted before this
 * migration have no refusals: `npm run cli -- stats rebuild` fills them for the days the outbox keeps.
 */
export class Migration20261127174830_stats_refusals_by_reason extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
alter table stats_hour add column refusals int not null default 0;
alter table stats_day add column refusals int not null default 0;
alter table stats_hour drop constraint stats_hour_dim_check, add constraint stats_hour_dim_check check (dim between 0 and 5) not valid;
alter table stats_day drop constraint stats_day_dim_check, add constraint stats_day_dim_check check (dim between 0 and 5) not valid;
alter table stats_hour validate constraint stats_hour_dim_check;
alter table stats_day validate constraint stats_day_dim_check;
`);
  }

  override async down(): Promise<void> {
    this.addSql(`
delete from stats_hour where dim = 5;
delete from stats_day where dim = 5;
alter table stats_hour drop constraint stats_hour_dim_check, add constraint stats_hour_dim_check check (dim between 0 and 4);
alter table stats_day drop constraint stats_day_dim_check, add constraint stats_day_dim_check check (dim between 0 and 4);
alter table stats_hour drop column refusals;
alter table stats_day drop column refusals;
`);
  }
}
