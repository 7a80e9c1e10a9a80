import { query } from '../../shared/db/named-sql';

/* The audit consumer's statement (workers/audit/write-audit.use-case.ts). */

// One statement per batch (`records`: AuditRecord[] as JSON); answers how many records it wrote. The
// audit consumer's position, moved in the same transaction, makes each event recorded once.
export const insertAuditRecords = query<{ records: string }, { inserted: number }>('audit-insert', `
with inserted as (
insert into audit_log (event_id, client_id, occurred_at, type, kind, wall_id, warehouse_id, user_id, order_id, picklist_id,
                       crc, barcode, sort_box_item_id, session_id, is_error, is_license_plate, message, data)
select r.event_id, r.client_id, r.occurred_at, r.type, r.kind, r.wall_id, r.warehouse_id, r.user_id, r.order_id, r.picklist_id,
       r.crc, r.barcode, r.sort_box_item_id, r.session_id, r.is_error, r.is_license_plate, r.message, coalesce(r.data, '{}'::jsonb)
  from jsonb_to_recordset(:records::jsonb) as r(event_id uuid, client_id int, occurred_at timestamptz, type text, kind text, wall_id int,
       warehouse_id int, user_id int, order_id int, picklist_id int, crc text, barcode text, sort_box_item_id int, session_id int,
       is_error boolean, is_license_plate boolean, message text, data jsonb)
returning 1
)
select count(*)::int as inserted from inserted`);

// The names audit messages use, for one batch: employees ("Ana Ruiz") and walls by id (ids are
// primary keys, so an id names one row whatever the client), with each wall's client and warehouse
// (ListAuditLogs filters by the warehouse): one lookup per wall of the batch, not per record.
export const selectAuditNames = query<
  { employeeIds: number[]; wallIds: number[] },
  { kind: 'employee' | 'wall'; id: number; name: string; client_id: number | null; warehouse_id: number | null }
>('audit-names', `
select 'employee' as kind, e.id, trim(e.first_name || ' ' || e.last_name) as name, null::int as client_id, null::int as warehouse_id
  from employee e where e.id = any(:employeeIds::int[])
union all
select 'wall' as kind, w.id, w.name, w.client_id, w.warehouse_id from wall w where w.id = any(:wallIds::int[])`);
