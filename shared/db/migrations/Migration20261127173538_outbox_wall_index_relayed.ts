import { Migration } from '@mikro-orm/migrations';

/**
 * The outbox's per-wall index holds relayed events only. Its two readers, a hub connection's start
 * (`hub-head`: the wall's last relayed event) and its replay (`hub-replay`: the wall's relayed events
 * after an id), both read relayed events (services/api/events/event-stream.queries.ts). A command's
 * insert of an event, not relayed yet, then writes no entry in it; the relay's stamp writes the entry
 * (the stamp's new row version is written into every index anyway: it changes indexed columns).
 */
export class Migration20261127173538_outbox_wall_index_relayed extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
drop index outbox_event_wall_idx;
-- hub-head, hub-replay
create index outbox_event_wall_idx on outbox_event (client_id, wall_id, id) where relay_seq is not null;
`);
  }

  override async down(): Promise<void> {
    this.addSql(`
drop index outbox_event_wall_idx;
create index outbox_event_wall_idx on outbox_event (client_id, wall_id, id);
`);
  }
}
