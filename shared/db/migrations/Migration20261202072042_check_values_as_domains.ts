import { Migration } from '@mikro-orm/migrations';

/**
 * The allowed values of the wall's settings and of an item's status as domains instead of table
 * checks (docs/architecture.md "Data"). PostgreSQL evaluates every check constraint of a table on
 * every update of a row, whichever columns it sets, and reads each check's stored expression anew
 * for every statement: every command's fence, which sets only the wall's version, checked the wall's
 * workflow, flow direction and sorter count, and every scan and confirm the item's status (the checks
 * of a scan's and a confirm's tables were about 4 % of a backend's CPU writing them, perf on the
 * bench's database; bench/write-cpu.ts measures the writes). A domain's check runs when a value is
 * written into the column (an insert, or an update that sets it), from a definition each connection
 * keeps: the same values are refused, and an update that leaves the column alone costs nothing for it.
 */
export class Migration20261202072042_check_values_as_domains extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
-- Each domain's check keeps the name of the table check it replaces (errors name the same constraint).
create domain wall_workflow as text constraint wall_workflow_check check (value in ('FreeSort', 'PicklistSort'));
create domain wall_flow_direction as text
  constraint wall_flow_direction_check check (value in ('LeftToRight', 'RightToLeft', 'TopToBottom', 'BottomToTop'));
create domain wall_max_sorters as smallint constraint wall_max_sorters_check check (value between 1 and 6);
create domain sort_box_item_status as text
  constraint sort_box_item_status_check check (value in ('PendingConfirmation', 'Confirmed', 'Cancelled'));

alter table wall
  drop constraint wall_workflow_check,
  drop constraint wall_flow_direction_check,
  drop constraint wall_max_sorters_check,
  alter column workflow type wall_workflow,
  alter column flow_direction type wall_flow_direction,
  alter column max_sorters type wall_max_sorters;
alter table sort_box_item
  drop constraint sort_box_item_status_check,
  alter column status type sort_box_item_status;
`);
  }

  override async down(): Promise<void> {
    this.addSql(`
alter table sort_box_item
  alter column status type text,
  add constraint sort_box_item_status_check check (status in ('PendingConfirmation', 'Confirmed', 'Cancelled'));
alter table wall
  alter column workflow type text,
  alter column flow_direction type text,
  alter column max_sorters type smallint,
  add constraint wall_workflow_check check (workflow in ('FreeSort', 'PicklistSort')),
  add constraint wall_flow_direction_check check (flow_direction in ('LeftToRight', 'RightToLeft', 'TopToBottom', 'BottomToTop')),
  add constraint wall_max_sorters_check check (max_sorters between 1 and 6);
drop domain sort_box_item_status;
drop domain wall_max_sorters;
drop domain wall_flow_direction;
drop domain wall_workflow;
`);
  }
}
