import { Migration } from '@mikro-orm/migrations';

/**
 * Test prints: a print job of source 'test' carries a test label of its printer (POST
 * /printers/{id}/test), no order and no license plate. The others keep both.
 */
export class Migration20261202041500_test_print_jobs extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
alter table print_job
  alter column order_id drop not null,
  alter column plate_number drop not null,
  drop constraint print_job_source_check,
  add constraint print_job_source_check check (source in ('request', 'auto', 'test')),
  add constraint print_job_order_check check ((source = 'test') = (order_id is null and plate_number is null));
`);
  }
}
