import { Migration } from '@mikro-orm/migrations';

/**
 * The wall actor (docs/architecture.md "The wall actor"):
 * - `wall.version` fences every write of a wall's state: the holder of the wall's partition decides a
 *   command in memory against the version it loaded and writes it with one statement that moves the
 *   version on only if it still holds that version (`sorting_write_check` raises 40001 otherwise, so
 *   nothing of the statement stays). Writers outside the command queue (order, picklist and product
 *   uploads, order ships) end their transaction by moving the version of the walls they affect; any
 *   other update of a wall row that does not set the version moves it too (the trigger), so a change
 *   an operator makes by hand to the wall row is seen by its actor.
 */
export class Migration20261125110000_wall_actor extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
alter table wall add column version bigint not null default 0;

create function wall_version_bump() returns trigger language plpgsql as $$
begin
  if new.version = old.version then new.version := old.version + 1; end if;
  return new;
end $$;
create trigger wall_version_bump before update on wall for each row execute function wall_version_bump();

-- The last step of a command's write: the fence matched, and every order line it changed still held
-- the figures the decision was made with. Otherwise the whole statement is undone (40001) and the
-- wall's actor reloads and decides again.
create function sorting_write_check(fenced bigint, lines_written bigint, lines_expected bigint) returns boolean language plpgsql as $$
begin
  if fenced = 0 then
    raise exception using errcode = '40001', message = 'the wall changed since its state was loaded', detail = 'wall-version';
  end if;
  if lines_written <> lines_expected then
    raise exception using errcode = '40001', message = 'an order line changed since it was read', detail = 'order-line';
  end if;
  return true;
end $$;
`);
  }

  override async down(): Promise<void> {
    this.addSql(`
drop function sorting_write_check(bigint, bigint, bigint);
drop trigger wall_version_bump on wall;
drop function wall_version_bump();
alter table wall drop column version;
`);
  }
}
