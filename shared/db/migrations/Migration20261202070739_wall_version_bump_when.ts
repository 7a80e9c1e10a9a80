import { Migration } from '@mikro-orm/migrations';

/**
 * The wall row's version trigger fires only for an update that does not move the version itself
 * (docs/architecture.md "The wall actor"). Every command's fence sets the version it leaves, so the
 * trigger's function ran once per command to do nothing; its condition now says so, and PostgreSQL
 * skips the call. An update that leaves the version alone (an operator's, the ORM's) still moves it.
 */
export class Migration20261202070739_wall_version_bump_when extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
drop trigger wall_version_bump on wall;
create trigger wall_version_bump before update on wall for each row when (new.version = old.version) execute function wall_version_bump();
`);
  }

  override async down(): Promise<void> {
    this.addSql(`
drop trigger wall_version_bump on wall;
create trigger wall_version_bump before update on wall for each row execute function wall_version_bump();
`);
  }
}
