import { Migration } from '@mikro-orm/migrations';

/**
 * A wall's pending scans are read on every hub poll (GET /walls/{id}, GET /walls/{id}/pending-items)
 * and by the light gateway: a partial index holds only the items waiting for confirmation, so that
 * read is bounded by the wall's own pending items however long the history of sort_box_item grows.
 */
export class Migration20261125400000_pending_items extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create index sort_box_item_pending_wall_idx on sort_box_item (wall_id, created_at, id) where status = 'PendingConfirmation';`);
  }

  override async down(): Promise<void> {
    this.addSql('drop index if exists sort_box_item_pending_wall_idx;');
  }
}
