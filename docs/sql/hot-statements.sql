-- The hot statements of the service, by name, generated from their query modules by `npm run sql:snapshot`:
-- the wall commands (the API's wall lookup; the actor's load, reads and fenced write), the wall read
-- hubs poll, the relay, the consumers' batches, the light gateway, the labels render ahead and the
-- webhook deliveries (every *.queries.ts of workers/ but the sweeper's). A test
-- (test/unit/hot-statements.test.ts) fails while this file and the code differ: a changed statement is
-- reviewed here, with its plan (EXPLAIN, and test/integration/hot-plans.test.ts for the actor's).
-- Parameters are named (:wallId); the driver numbers them.

-- name: apply-wall-changes:liek
/* apply-wall-changes: a command's one write (its name shows in pg_stat_activity, whose query text is cut short) */
with lines as (
  update order_item oi set confirmed_qty = l."newConfirmedQty", pending_qty = l."newPendingQty"
    from jsonb_to_recordset(:lines::jsonb) as l(id int, qty int, "confirmedQty" int, "pendingQty" int, "newConfirmedQty" int, "newPendingQty" int)
   -- By key alone: a client_id condition here would let a plan without statistics read the client's
   -- whole (client, sku, warehouse) index. The ids come from the wall's own client-scoped reads.
   where oi.id = any(array(select (e->>'id')::int from jsonb_array_elements(:lines::jsonb) e)) and oi.id = l.id
     and oi.qty = l.qty and oi.confirmed_qty = l."confirmedQty" and oi.pending_qty = l."pendingQty"
  returning 1
), items_inserted as (
  insert into sort_box_item (id, client_id, wall_id, sort_box_id, crc, order_id, order_item_id, product_id, sku, barcode,
                             barcode_input_method, user_id, session_id, color, units, confirmed_units, status, created_at, requires_serial,
                             confirmed_at, cancelled_at, serial)
  select x.id, :clientId::int, :wallId::int, x."sortBoxId", x.crc, x."orderId", x."orderItemId", x."productId", x.sku, x.barcode,
         x."barcodeInputMethod", x."userId", x."sessionId", x.color, x.units, x."confirmedUnits", x.status, x."createdAt", x."requiresSerial",
         x."confirmedAt", x."cancelledAt", x.serial
    from jsonb_to_recordset(:itemsInserted::jsonb) as x(id int, "sortBoxId" int, crc text, "orderId" int, "orderItemId" int, "productId" int, sku text, barcode text,
  "barcodeInputMethod" text, "userId" int, "sessionId" int, color text, units int, "confirmedUnits" int, status text,
  "createdAt" timestamptz, "confirmedAt" timestamptz, "cancelledAt" timestamptz, "requiresSerial" boolean, serial text)
  returning 1
), events as (
  insert into outbox_event (event_id, client_id, wall_id, type, occurred_at, data)
  select e."eventId", e."clientId", e."wallId", e.type, e."occurredAt", e.data
    from jsonb_to_recordset(:events::jsonb) as e("eventId" uuid, "clientId" int, "wallId" int, type text, "occurredAt" timestamptz, data jsonb)
  returning 1
), record as (
  insert into applied_command (command_id, client_id, wall_id, name, partition, job_id, result, applied_at, idempotency_key, request_hash)
  select :commandId::uuid, :clientId::int, :wallId::int, :command::text, :partition::int, :jobId::bigint, :result::jsonb, :now::timestamptz, k.key, k."requestHash"
    from jsonb_to_record(:idempotency::jsonb) as k(key text, "requestHash" text)
  returning 1
), fence as (
  update wall w set version = :nextVersion::bigint
   where w.id = :wallId::int and w.client_id = :clientId::int and w.version = :expectedVersion::bigint
     and (select count(*) from lines) + (select count(*) from items_inserted) + (select count(*) from events) + (select count(*) from record) >= 0
  returning 1
)
select sorting_write_check((select count(*) from fence), (select count(*) from lines), :lineCount::bigint) as ok,
       (select array_agg(nextval('sort_box_item_id_seq')::int) from generate_series(1, :itemIdRefill::int)) as item_ids,
       (select array_agg(nextval('sorter_session_id_seq')::int) from generate_series(1, :sessionIdRefill::int)) as session_ids;

-- name: apply-wall-changes:liekr
/* apply-wall-changes: a command's one write (its name shows in pg_stat_activity, whose query text is cut short) */
with lines as (
  update order_item oi set confirmed_qty = l."newConfirmedQty", pending_qty = l."newPendingQty"
    from jsonb_to_recordset(:lines::jsonb) as l(id int, qty int, "confirmedQty" int, "pendingQty" int, "newConfirmedQty" int, "newPendingQty" int)
   -- By key alone: a client_id condition here would let a plan without statistics read the client's
   -- whole (client, sku, warehouse) index. The ids come from the wall's own client-scoped reads.
   where oi.id = any(array(select (e->>'id')::int from jsonb_array_elements(:lines::jsonb) e)) and oi.id = l.id
     and oi.qty = l.qty and oi.confirmed_qty = l."confirmedQty" and oi.pending_qty = l."pendingQty"
  returning 1
), items_inserted as (
  insert into sort_box_item (id, client_id, wall_id, sort_box_id, crc, order_id, order_item_id, product_id, sku, barcode,
                             barcode_input_method, user_id, session_id, color, units, confirmed_units, status, created_at, requires_serial,
                             confirmed_at, cancelled_at, serial)
  select x.id, :clientId::int, :wallId::int, x."sortBoxId", x.crc, x."orderId", x."orderItemId", x."productId", x.sku, x.barcode,
         x."barcodeInputMethod", x."userId", x."sessionId", x.color, x.units, x."confirmedUnits", x.status, x."createdAt", x."requiresSerial",
         x."confirmedAt", x."cancelledAt", x.serial
    from jsonb_to_recordset(:itemsInserted::jsonb) as x(id int, "sortBoxId" int, crc text, "orderId" int, "orderItemId" int, "productId" int, sku text, barcode text,
  "barcodeInputMethod" text, "userId" int, "sessionId" int, color text, units int, "confirmedUnits" int, status text,
  "createdAt" timestamptz, "confirmedAt" timestamptz, "cancelledAt" timestamptz, "requiresSerial" boolean, serial text)
  returning 1
), events as (
  insert into outbox_event (event_id, client_id, wall_id, type, occurred_at, data)
  select e."eventId", e."clientId", e."wallId", e.type, e."occurredAt", e.data
    from jsonb_to_recordset(:events::jsonb) as e("eventId" uuid, "clientId" int, "wallId" int, type text, "occurredAt" timestamptz, data jsonb)
  returning 1
), record as (
  insert into applied_command (command_id, client_id, wall_id, name, partition, job_id, result, applied_at, idempotency_key, request_hash)
  select r."commandId", :clientId::int, :wallId::int, r.name, r.partition, r."jobId", coalesce(r.result, 'null'::jsonb), r."appliedAt", r.key, r."requestHash"
    from jsonb_to_recordset(:records::jsonb) as r("commandId" uuid, name text, partition int, "jobId" bigint, "appliedAt" timestamptz, result jsonb, key text, "requestHash" text)
  returning 1
), fence as (
  update wall w set version = :nextVersion::bigint
   where w.id = :wallId::int and w.client_id = :clientId::int and w.version = :expectedVersion::bigint
     and (select count(*) from lines) + (select count(*) from items_inserted) + (select count(*) from events) + (select count(*) from record) >= 0
  returning 1
)
select sorting_write_check((select count(*) from fence), (select count(*) from lines), :lineCount::bigint) as ok,
       (select array_agg(nextval('sort_box_item_id_seq')::int) from generate_series(1, :itemIdRefill::int)) as item_ids,
       (select array_agg(nextval('sorter_session_id_seq')::int) from generate_series(1, :sessionIdRefill::int)) as session_ids;

-- name: apply-wall-changes:loiek
/* apply-wall-changes: a command's one write (its name shows in pg_stat_activity, whose query text is cut short) */
with lines as (
  update order_item oi set confirmed_qty = l."newConfirmedQty", pending_qty = l."newPendingQty"
    from jsonb_to_recordset(:lines::jsonb) as l(id int, qty int, "confirmedQty" int, "pendingQty" int, "newConfirmedQty" int, "newPendingQty" int)
   -- By key alone: a client_id condition here would let a plan without statistics read the client's
   -- whole (client, sku, warehouse) index. The ids come from the wall's own client-scoped reads.
   where oi.id = any(array(select (e->>'id')::int from jsonb_array_elements(:lines::jsonb) e)) and oi.id = l.id
     and oi.qty = l.qty and oi.confirmed_qty = l."confirmedQty" and oi.pending_qty = l."pendingQty"
  returning 1
), slots_occupied as (
  update sort_box sb set status = s.status, order_id = s."orderId", assigned_at = s."assignedAt"
    from jsonb_to_recordset(:slotsOccupied::jsonb) as s(id int, status text, "orderId" int, "assignedAt" timestamptz)
   where sb.id = any(array(select (e->>'id')::int from jsonb_array_elements(:slotsOccupied::jsonb) e)) and sb.id = s.id and sb.wall_id = :wallId::int
  returning 1
), items_inserted as (
  insert into sort_box_item (id, client_id, wall_id, sort_box_id, crc, order_id, order_item_id, product_id, sku, barcode,
                             barcode_input_method, user_id, session_id, color, units, confirmed_units, status, created_at, requires_serial,
                             confirmed_at, cancelled_at, serial)
  select x.id, :clientId::int, :wallId::int, x."sortBoxId", x.crc, x."orderId", x."orderItemId", x."productId", x.sku, x.barcode,
         x."barcodeInputMethod", x."userId", x."sessionId", x.color, x.units, x."confirmedUnits", x.status, x."createdAt", x."requiresSerial",
         x."confirmedAt", x."cancelledAt", x.serial
    from jsonb_to_recordset(:itemsInserted::jsonb) as x(id int, "sortBoxId" int, crc text, "orderId" int, "orderItemId" int, "productId" int, sku text, barcode text,
  "barcodeInputMethod" text, "userId" int, "sessionId" int, color text, units int, "confirmedUnits" int, status text,
  "createdAt" timestamptz, "confirmedAt" timestamptz, "cancelledAt" timestamptz, "requiresSerial" boolean, serial text)
  returning 1
), events as (
  insert into outbox_event (event_id, client_id, wall_id, type, occurred_at, data)
  select e."eventId", e."clientId", e."wallId", e.type, e."occurredAt", e.data
    from jsonb_to_recordset(:events::jsonb) as e("eventId" uuid, "clientId" int, "wallId" int, type text, "occurredAt" timestamptz, data jsonb)
  returning 1
), record as (
  insert into applied_command (command_id, client_id, wall_id, name, partition, job_id, result, applied_at, idempotency_key, request_hash)
  select :commandId::uuid, :clientId::int, :wallId::int, :command::text, :partition::int, :jobId::bigint, :result::jsonb, :now::timestamptz, k.key, k."requestHash"
    from jsonb_to_record(:idempotency::jsonb) as k(key text, "requestHash" text)
  returning 1
), fence as (
  update wall w set version = :nextVersion::bigint
   where w.id = :wallId::int and w.client_id = :clientId::int and w.version = :expectedVersion::bigint
     and (select count(*) from lines) + (select count(*) from slots_occupied) + (select count(*) from items_inserted) + (select count(*) from events) + (select count(*) from record) >= 0
  returning 1
)
select sorting_write_check((select count(*) from fence), (select count(*) from lines), :lineCount::bigint) as ok,
       (select array_agg(nextval('sort_box_item_id_seq')::int) from generate_series(1, :itemIdRefill::int)) as item_ids,
       (select array_agg(nextval('sorter_session_id_seq')::int) from generate_series(1, :sessionIdRefill::int)) as session_ids;

-- name: apply-wall-changes:lue
/* apply-wall-changes: a command's one write (its name shows in pg_stat_activity, whose query text is cut short) */
with lines as (
  update order_item oi set confirmed_qty = l."newConfirmedQty", pending_qty = l."newPendingQty"
    from jsonb_to_recordset(:lines::jsonb) as l(id int, qty int, "confirmedQty" int, "pendingQty" int, "newConfirmedQty" int, "newPendingQty" int)
   -- By key alone: a client_id condition here would let a plan without statistics read the client's
   -- whole (client, sku, warehouse) index. The ids come from the wall's own client-scoped reads.
   where oi.id = any(array(select (e->>'id')::int from jsonb_array_elements(:lines::jsonb) e)) and oi.id = l.id
     and oi.qty = l.qty and oi.confirmed_qty = l."confirmedQty" and oi.pending_qty = l."pendingQty"
  returning 1
), items_updated as (
  update sort_box_item i set sort_box_id = x."sortBoxId", crc = x.crc, session_id = x."sessionId", units = x.units,
                             confirmed_units = x."confirmedUnits", status = x.status, confirmed_at = x."confirmedAt", cancelled_at = x."cancelledAt",
                             serial = x.serial
    from jsonb_to_recordset(:itemsUpdated::jsonb) as x(id int, "sortBoxId" int, crc text, "orderId" int, "orderItemId" int, "productId" int, sku text, barcode text,
  "barcodeInputMethod" text, "userId" int, "sessionId" int, color text, units int, "confirmedUnits" int, status text,
  "createdAt" timestamptz, "confirmedAt" timestamptz, "cancelledAt" timestamptz, "requiresSerial" boolean, serial text)
   where i.id = any(array(select (e->>'id')::int from jsonb_array_elements(:itemsUpdated::jsonb) e)) and i.id = x.id and i.wall_id = :wallId::int
  returning 1
), events as (
  insert into outbox_event (event_id, client_id, wall_id, type, occurred_at, data)
  select e."eventId", e."clientId", e."wallId", e.type, e."occurredAt", e.data
    from jsonb_to_recordset(:events::jsonb) as e("eventId" uuid, "clientId" int, "wallId" int, type text, "occurredAt" timestamptz, data jsonb)
  returning 1
), record as (
  insert into applied_command (command_id, client_id, wall_id, name, partition, job_id, result, applied_at)
  values (:commandId::uuid, :clientId::int, :wallId::int, :command::text, :partition::int, :jobId::bigint, :result::jsonb, :now::timestamptz)
  returning 1
), fence as (
  update wall w set version = :nextVersion::bigint
   where w.id = :wallId::int and w.client_id = :clientId::int and w.version = :expectedVersion::bigint
     and (select count(*) from lines) + (select count(*) from items_updated) + (select count(*) from events) + (select count(*) from record) >= 0
  returning 1
)
select sorting_write_check((select count(*) from fence), (select count(*) from lines), :lineCount::bigint) as ok,
       (select array_agg(nextval('sort_box_item_id_seq')::int) from generate_series(1, :itemIdRefill::int)) as item_ids,
       (select array_agg(nextval('sorter_session_id_seq')::int) from generate_series(1, :sessionIdRefill::int)) as session_ids;

-- name: apply-wall-changes:lvoadsnuiekwr
/* apply-wall-changes: a command's one write (its name shows in pg_stat_activity, whose query text is cut short) */
with lines as (
  update order_item oi set confirmed_qty = l."newConfirmedQty", pending_qty = l."newPendingQty"
    from jsonb_to_recordset(:lines::jsonb) as l(id int, qty int, "confirmedQty" int, "pendingQty" int, "newConfirmedQty" int, "newPendingQty" int)
   -- By key alone: a client_id condition here would let a plan without statistics read the client's
   -- whole (client, sku, warehouse) index. The ids come from the wall's own client-scoped reads.
   where oi.id = any(array(select (e->>'id')::int from jsonb_array_elements(:lines::jsonb) e)) and oi.id = l.id
     and oi.qty = l.qty and oi.confirmed_qty = l."confirmedQty" and oi.pending_qty = l."pendingQty"
  returning 1
), slots_vacated as (
  update sort_box sb set status = s.status, order_id = s."orderId", assigned_at = s."assignedAt"
    from jsonb_to_recordset(:slotsVacated::jsonb) as s(id int, status text, "orderId" int, "assignedAt" timestamptz)
   where sb.id = any(array(select (e->>'id')::int from jsonb_array_elements(:slotsVacated::jsonb) e)) and sb.id = s.id and sb.wall_id = :wallId::int
  returning 1
), slots_occupied as (
  update sort_box sb set status = s.status, order_id = s."orderId", assigned_at = s."assignedAt"
    from jsonb_to_recordset(:slotsOccupied::jsonb) as s(id int, status text, "orderId" int, "assignedAt" timestamptz)
   where sb.id = any(array(select (e->>'id')::int from jsonb_array_elements(:slotsOccupied::jsonb) e)) and sb.id = s.id and sb.wall_id = :wallId::int and (select count(*) from slots_vacated) >= 0
  returning 1
), slots_inserted as (
  insert into sort_box (id, client_id, wall_id, serial_number, crc, position, status, order_id, assigned_at, created_at)
  select s.id, :clientId::int, :wallId::int, s."serialNumber", s.crc, s.position, s.status, null, null, :now::timestamptz
    from jsonb_to_recordset(:slotsInserted::jsonb) as s(id int, "serialNumber" text, crc text, position int, status text)
  returning 1
), slots_deleted as (
  delete from sort_box where id = any(:slotsDeleted::int[]) and wall_id = :wallId::int returning 1
), sessions_updated as (
  update sorter_session ss set status = s.status, end_reason = s."endReason", ended_at = s."endedAt",
                               last_activity_at = s."lastActivityAt", expires_at = s."expiresAt"
    from jsonb_to_recordset(:sessionsUpdated::jsonb) as s(id int, token text, "userId" int, "picklistId" int, color text, status text, "startedAt" timestamptz,
  "lastActivityAt" timestamptz, "expiresAt" timestamptz, "endedAt" timestamptz, "endReason" text)
   where ss.id = any(array(select (e->>'id')::int from jsonb_array_elements(:sessionsUpdated::jsonb) e)) and ss.id = s.id and ss.wall_id = :wallId::int
  returning 1
), sessions_inserted as (
  insert into sorter_session (id, token, client_id, wall_id, user_id, picklist_id, color, status, started_at, last_activity_at, expires_at, ended_at, end_reason)
  select s.id, s.token, :clientId::int, :wallId::int, s."userId", s."picklistId", s.color, s.status, s."startedAt", s."lastActivityAt", s."expiresAt",
         s."endedAt", s."endReason"
    from jsonb_to_recordset(:sessionsInserted::jsonb) as s(id int, token text, "userId" int, "picklistId" int, color text, status text, "startedAt" timestamptz,
  "lastActivityAt" timestamptz, "expiresAt" timestamptz, "endedAt" timestamptz, "endReason" text)
   where (select count(*) from sessions_updated) >= 0
  returning 1
), items_updated as (
  update sort_box_item i set sort_box_id = x."sortBoxId", crc = x.crc, session_id = x."sessionId", units = x.units,
                             confirmed_units = x."confirmedUnits", status = x.status, confirmed_at = x."confirmedAt", cancelled_at = x."cancelledAt",
                             serial = x.serial
    from jsonb_to_recordset(:itemsUpdated::jsonb) as x(id int, "sortBoxId" int, crc text, "orderId" int, "orderItemId" int, "productId" int, sku text, barcode text,
  "barcodeInputMethod" text, "userId" int, "sessionId" int, color text, units int, "confirmedUnits" int, status text,
  "createdAt" timestamptz, "confirmedAt" timestamptz, "cancelledAt" timestamptz, "requiresSerial" boolean, serial text)
   where i.id = any(array(select (e->>'id')::int from jsonb_array_elements(:itemsUpdated::jsonb) e)) and i.id = x.id and i.wall_id = :wallId::int
  returning 1
), items_inserted as (
  insert into sort_box_item (id, client_id, wall_id, sort_box_id, crc, order_id, order_item_id, product_id, sku, barcode,
                             barcode_input_method, user_id, session_id, color, units, confirmed_units, status, created_at, requires_serial,
                             confirmed_at, cancelled_at, serial)
  select x.id, :clientId::int, :wallId::int, x."sortBoxId", x.crc, x."orderId", x."orderItemId", x."productId", x.sku, x.barcode,
         x."barcodeInputMethod", x."userId", x."sessionId", x.color, x.units, x."confirmedUnits", x.status, x."createdAt", x."requiresSerial",
         x."confirmedAt", x."cancelledAt", x.serial
    from jsonb_to_recordset(:itemsInserted::jsonb) as x(id int, "sortBoxId" int, crc text, "orderId" int, "orderItemId" int, "productId" int, sku text, barcode text,
  "barcodeInputMethod" text, "userId" int, "sessionId" int, color text, units int, "confirmedUnits" int, status text,
  "createdAt" timestamptz, "confirmedAt" timestamptz, "cancelledAt" timestamptz, "requiresSerial" boolean, serial text)
  returning 1
), events as (
  insert into outbox_event (event_id, client_id, wall_id, type, occurred_at, data)
  select e."eventId", e."clientId", e."wallId", e.type, e."occurredAt", e.data
    from jsonb_to_recordset(:events::jsonb) as e("eventId" uuid, "clientId" int, "wallId" int, type text, "occurredAt" timestamptz, data jsonb)
  returning 1
), record as (
  insert into applied_command (command_id, client_id, wall_id, name, partition, job_id, result, applied_at, idempotency_key, request_hash)
  select r."commandId", :clientId::int, :wallId::int, r.name, r.partition, r."jobId", coalesce(r.result, 'null'::jsonb), r."appliedAt", r.key, r."requestHash"
    from jsonb_to_recordset(:records::jsonb) as r("commandId" uuid, name text, partition int, "jobId" bigint, "appliedAt" timestamptz, result jsonb, key text, "requestHash" text)
  returning 1
), fence as (
  update wall w set version = :nextVersion::bigint,
         name = coalesce(f.name, w.name), is_active = coalesce(f."isActive", w.is_active), max_sorters = coalesce(f."maxSorters", w.max_sorters),
         warehouse_id = f."warehouseId", workflow = coalesce(f.workflow, w.workflow), flow_direction = coalesce(f."flowDirection", w.flow_direction),
         segment_rows = f."segmentRows", segment_columns = f."segmentColumns", updated_at = :now::timestamptz
    from jsonb_to_record(:wall::jsonb) as f(name text, "isActive" boolean, "maxSorters" int, "warehouseId" int, workflow text,
                                            "flowDirection" text, "segmentRows" int, "segmentColumns" int)
   where w.id = :wallId::int and w.client_id = :clientId::int and w.version = :expectedVersion::bigint
     and (select count(*) from lines) + (select count(*) from slots_vacated) + (select count(*) from slots_occupied) + (select count(*) from slots_inserted) + (select count(*) from slots_deleted) + (select count(*) from sessions_updated) + (select count(*) from sessions_inserted) + (select count(*) from items_updated) + (select count(*) from items_inserted) + (select count(*) from events) + (select count(*) from record) >= 0
  returning 1
)
select sorting_write_check((select count(*) from fence), (select count(*) from lines), :lineCount::bigint) as ok,
       (select array_agg(nextval('sort_box_item_id_seq')::int) from generate_series(1, :itemIdRefill::int)) as item_ids,
       (select array_agg(nextval('sorter_session_id_seq')::int) from generate_series(1, :sessionIdRefill::int)) as session_ids;

-- name: apply-wall-changes:ve
/* apply-wall-changes: a command's one write (its name shows in pg_stat_activity, whose query text is cut short) */
with slots_vacated as (
  update sort_box sb set status = s.status, order_id = s."orderId", assigned_at = s."assignedAt"
    from jsonb_to_recordset(:slotsVacated::jsonb) as s(id int, status text, "orderId" int, "assignedAt" timestamptz)
   where sb.id = any(array(select (e->>'id')::int from jsonb_array_elements(:slotsVacated::jsonb) e)) and sb.id = s.id and sb.wall_id = :wallId::int
  returning 1
), events as (
  insert into outbox_event (event_id, client_id, wall_id, type, occurred_at, data)
  select e."eventId", e."clientId", e."wallId", e.type, e."occurredAt", e.data
    from jsonb_to_recordset(:events::jsonb) as e("eventId" uuid, "clientId" int, "wallId" int, type text, "occurredAt" timestamptz, data jsonb)
  returning 1
), record as (
  insert into applied_command (command_id, client_id, wall_id, name, partition, job_id, result, applied_at)
  values (:commandId::uuid, :clientId::int, :wallId::int, :command::text, :partition::int, :jobId::bigint, :result::jsonb, :now::timestamptz)
  returning 1
), fence as (
  update wall w set version = :nextVersion::bigint
   where w.id = :wallId::int and w.client_id = :clientId::int and w.version = :expectedVersion::bigint
     and (select count(*) from slots_vacated) + (select count(*) from events) + (select count(*) from record) >= 0
  returning 1
)
select sorting_write_check((select count(*) from fence), 0, :lineCount::bigint) as ok,
       (select array_agg(nextval('sort_box_item_id_seq')::int) from generate_series(1, :itemIdRefill::int)) as item_ids,
       (select array_agg(nextval('sorter_session_id_seq')::int) from generate_series(1, :sessionIdRefill::int)) as session_ids;

-- name: attach-read
select coalesce((select json_agg(json_build_object('serialNumber', b.serial_number, 'crc', b.crc, 'wallId', b.wall_id, 'wallName', w.name, 'position', b.position))
                   from sort_box b join wall w on w.id = b.wall_id
                  where b.client_id = :clientId and b.serial_number = any(:serials::text[])), '[]') as by_serial,
       coalesce((select json_agg(json_build_object('serialNumber', b.serial_number, 'crc', b.crc, 'wallId', b.wall_id, 'wallName', w.name, 'position', b.position))
                   from sort_box b join wall w on w.id = b.wall_id
                  where b.client_id = :clientId and b.crc = any(:crcs::bpchar[])), '[]') as by_crc,
       (select array_agg(nextval('sort_box_id_seq')::int) from generate_series(1, :fresh::int)) as ids;

-- name: audit-insert
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
select count(*)::int as inserted from inserted;

-- name: audit-names
select 'employee' as kind, e.id, trim(e.first_name || ' ' || e.last_name) as name, null::int as client_id, null::int as warehouse_id
  from employee e where e.id = any(:employeeIds::int[])
union all
select 'wall' as kind, w.id, w.name, w.client_id, w.warehouse_id from wall w where w.id = any(:wallIds::int[]);

-- name: backend-pid
select pg_backend_pid() as pid;

-- name: earlier-answer
select exists (select 1 from applied_command ac where ac.command_id = :commandId::uuid) as applied,
       (select ac.result from applied_command ac where ac.command_id = :commandId::uuid) as result,
       (select json_build_object('code', o.data->>'code', 'detail', o.data->>'detail') from outbox_event o where o.event_id = :refusedEventId::uuid) as refusal;

-- name: employee-names
select id, first_name, last_name from employee where id = any(:ids::int[]);

-- name: idempotency-record
select name as operation, request_hash, result as body from applied_command
 where client_id = :clientId::int and idempotency_key = :key::text and idempotency_key is not null;

-- name: item-by-id
select row_to_json(i) as item,
       (select row_to_json(s) from (select sb.id, sb.wall_id as "wallId", sb.serial_number as "serialNumber", sb.crc, sb.position, sb.status,
                                           sb.order_id as "orderId", sb.assigned_at as "assignedAt"
                                      from sort_box sb where sb.id = i."sortBoxId") s) as slot
  from (select x.id, x.wall_id as "wallId", x.sort_box_id as "sortBoxId", x.crc, x.order_id as "orderId", x.order_item_id as "orderItemId",
       x.product_id as "productId", x.sku, x.barcode, x.barcode_input_method as "barcodeInputMethod", x.user_id as "userId",
       x.session_id as "sessionId", x.color, x.units, x.confirmed_units as "confirmedUnits", x.status, x.created_at as "createdAt",
       x.confirmed_at as "confirmedAt", x.cancelled_at as "cancelledAt", x.requires_serial as "requiresSerial", x.serial from sort_box_item x where x.id = :itemId and x.client_id = :clientId and x.wall_id = :wallId) i;

-- name: label-document-store
insert into license_plate_document (client_id, order_id, format, plate_number, label_hash, body, rendered_at)
   values (:clientId::int, :orderId::int, :format::text, :plateNumber::text, :hash::text, :body::bytea, now())
   on conflict (client_id, order_id, format) do update
     set plate_number = excluded.plate_number, label_hash = excluded.label_hash, body = excluded.body, rendered_at = excluded.rendered_at;

-- name: label-formats-printed
select client_id, format from label_print_format
    where client_id = any(:clientIds::int[]) and last_printed_at > now() - make_interval(days => :days::int);

-- name: label-plate-prerender
with 
o as (
  select o.id, o.ship_to,
         (select coalesce(sum(i.qty), 0)::int from order_item i where i.client_id = o.client_id and i.order_id = o.id) as units
  from orders o where o.client_id = :clientId and o.id = :orderId
), s as (
  select sb.crc, sb.position, w.id as wall_id, w.name as wall_name
  from sort_box sb join wall w on w.id = sb.wall_id
  where sb.client_id = :clientId and sb.order_id = :orderId
), p as (
  insert into license_plate (client_id, order_id, plate_number, print_count)
  select :clientId::int, o.id, 'LP' || lpad(nextval('license_plate_number_seq')::text, 10, '0'), 0 from o
  on conflict (client_id, order_id) do update set plate_number = license_plate.plate_number
  returning plate_number
)
select o.ship_to, o.units, p.plate_number, s.crc, s.position, s.wall_name
from o cross join p left join s on true;

-- name: lights-insert-events
insert into outbox_event (event_id, client_id, wall_id, type, occurred_at, data)
select e."eventId"::uuid, e."clientId", e."wallId", e.type, e."occurredAt", e.data
  from jsonb_to_recordset(:events::jsonb) as e ("eventId" text, "clientId" int, "wallId" int, type text, "occurredAt" timestamptz, data jsonb);

-- name: lights-online-controllers
select client_id as "clientId", controller_id as "controllerId", driver, online, serial_numbers as "serialNumbers", address, last_seen_at as "lastSeenAt"
  from light_controller where online;

-- name: lights-slot-for-button
select b.wall_id as "wallId", b.crc, b.position,
       coalesce((select json_agg(json_build_object('id', i.id, 'userId', i.user_id, 'units', i.units, 'color', i.color,
                                           'sku', i.sku, 'requiresSerial', i.requires_serial) order by i.created_at, i.id)
                   from sort_box_item i
                  where i.wall_id = b.wall_id and i.sort_box_id = b.id and i.status = 'PendingConfirmation'), '[]') as pending,
       (select m.mode from wall_light_mode m where m.wall_id = b.wall_id and m.until > now()) as mode
  from sort_box b
 where b.client_id = :clientId and b.serial_number = :serialNumber;

-- name: lights-upsert-controller
insert into light_controller as c (client_id, controller_id, driver, online, serial_numbers, address, last_seen_at, changed_at)
values (:clientId, :controllerId, :driver, :online, :serialNumbers::text[], :address, :lastSeenAt, now())
on conflict (client_id, controller_id) do update
   set driver = excluded.driver, online = excluded.online, serial_numbers = excluded.serial_numbers, address = excluded.address,
       last_seen_at = greatest(c.last_seen_at, excluded.last_seen_at),
       changed_at = case when c.online is distinct from excluded.online then now() else c.changed_at end;

-- name: lights-wall-states
select w.id as "wallId", w.client_id as "clientId",
       coalesce((select json_agg(json_build_object('serialNumber', b.serial_number, 'crc', b.crc, 'position', b.position, 'status', b.status)
                                 order by b.position)
                   from sort_box b where b.wall_id = w.id), '[]') as slots,
       -- An item carries its slot's crc (a swap moves both), so its slot is not read again per item.
       coalesce((select json_agg(json_build_object('id', i.id, 'crc', i.crc, 'color', i.color, 'units', i.units,
                                                   'createdAt', floor(extract(epoch from i.created_at) * 1000)))
                   from sort_box_item i
                  where i.wall_id = w.id and i.status = 'PendingConfirmation' and i.sort_box_id is not null), '[]') as pending,
       (select json_build_object('mode', m.mode, 'startedAt', floor(extract(epoch from m.started_at) * 1000),
                                 'until', floor(extract(epoch from m.until) * 1000))
          from wall_light_mode m where m.wall_id = w.id) as mode,
       coalesce((select case when o.client_id = w.client_id and o.wall_id = w.id then o.id end
                   from outbox_event o
                  where (o.client_id, o.wall_id) <= (w.client_id, w.id) and o.type not in ('lights.mode', 'lights.controller', 'lights.button')
                  order by o.client_id desc, o.wall_id desc, o.id desc
                  limit 1), 0)::text as through
  from wall w
 where w.id = any(:wallIds::int[]);

-- name: lights-walls-of-serials
select distinct wall_id as "wallId" from sort_box where client_id = :clientId and serial_number = any(:serialNumbers::text[]);

-- name: lights-walls-to-sweep
select w.id, (select count(*) from sort_box b where b.wall_id = w.id)::int as slots from wall w order by w.id;

-- name: lights-walls-with-slots
select w.id from wall w where exists (select 1 from sort_box b where b.wall_id = w.id) order by w.id;

-- name: lock-group-lines
select id from order_item where id = any(:lineIds::int[]) order by id for update;

-- name: outbox-advance
select locked, before::text, through::text, next_candidate::text, next_holders, next_gap::text,
       id::text, event_id, type, occurred_at, client_id, wall_id, data
  from outbox_relay_locked_step(:candidate::bigint, :holders::text[], :gap::bigint, :after::bigint, :batchSize::int, :notify::text);

-- name: outbox-consumer-has-work
select c.position < coalesce((select h.through from outbox_horizon h), 0) as work
     from outbox_consumer c where c.name = :name::text;

-- name: outbox-consumer-lock
select position::text, set_config('synchronous_commit', 'off', true) as commit_mode
  from outbox_consumer where name = :name::text for update skip locked;

-- name: outbox-consumer-register
insert into outbox_consumer (name, position) values (:name::text, coalesce((select through from outbox_horizon), 0))
on conflict (name) do nothing;

-- name: outbox-consumer-save
update outbox_consumer set position = :position::bigint, updated_at = now() where name = :name::text;

-- name: outbox-consumer-save-handled
with c as materialized (
  select name, position, set_config('synchronous_commit', 'off', true) as commit_mode
    from outbox_consumer where name = :name::text for update skip locked
), moved as (
  update outbox_consumer o set position = :position::bigint, updated_at = now()
    from c where o.name = c.name and c.position < :position::bigint
  returning o.position
)
select coalesce((select position from moved), c.position)::text as saved from c;

-- name: outbox-next-events
with c as materialized (
  select position as saved, greatest(position, coalesce(:known::bigint, position)) as position,
         set_config('synchronous_commit', 'off', true) as commit_mode
    from outbox_consumer where name = :name::text for update skip locked
), horizon as (select through from outbox_horizon), batch as (
  select b.id, b.event_id, b.type, b.occurred_at, b.client_id, b.wall_id, b.data
    from c, outbox_events_after(c.position, (select through from horizon), :batchSize::int, :types::text[]) b
), reach as (
  select case when (select count(*) from batch) >= :batchSize::int then (select max(id) from batch)
              else (select through from horizon) end as through
)
select c.saved::text, c.position::text, r.through::text, b.id::text, b.event_id, b.type, b.occurred_at, b.client_id, b.wall_id, b.data
  from c cross join reach r left join batch b on true order by b.id;

-- name: outbox-next-range
with h as (select through from outbox_horizon),
     batch as (select id from outbox_events_after(:after::bigint, (select through from h), :batchSize::int, null))
select (case when (select count(*) from batch) >= :batchSize::int then (select max(id) from batch) else (select through from h) end)::text as through,
       (select count(*) from batch)::int as n;

-- name: outbox-other-listeners
select exists (
  select 1 from pg_stat_activity a
   where a.datname = current_database() and a.application_name = :listener::text and a.pid is distinct from :own::int
) as others;

-- name: outbox-recently-relayed
with last as (
  select * from outbox_event where id <= :through::bigint order by id desc limit 1000
)
select id::text, event_id, type, occurred_at, client_id, wall_id, data from last
 where occurred_at >= (select max(occurred_at) from last) - interval '5 seconds'
 -- last.id, the bigint: a bare "id" here names the output column, the text, and 10 sorted before 9.
 order by last.id;

-- name: outbox-relayed-between
select id::text, event_id, type, occurred_at, client_id, wall_id, data
  from outbox_events_after(:after::bigint, :through::bigint, :batchSize::int, null);

-- name: outbox-relayed-event
select id::text, event_id, type, occurred_at, client_id, wall_id, data from outbox_event where id = :id::bigint;

-- name: picklist-status
select status from picklist where client_id = :clientId and id = :picklistId;

-- name: print-auto-walls
select wall_id, client_id, printer_id from wall_printer where wall_id = any(:wallIds::int[]) and auto_print and printer_id is not null;

-- name: print-claim
with due as (
  select j.id, j.writing_attempt is not null as unknown_outcome, j.created_at < now() - make_interval(secs => :giveUpMs::int / 1000.0) as too_late
    from print_job j
   where j.status = 'Queued' and j.due_at <= now()
   order by j.due_at limit :limit::int for update skip locked
), closed as (
  update print_job j
     set status = 'Failed',
         last_error = case when d.unknown_outcome then :unknown::text else :late::text || coalesce(' Last error: ' || j.last_error, '') end
    from due d where j.id = d.id and (d.unknown_outcome or d.too_late)
), claimed as (
  update print_job j set attempts = j.attempts + 1, due_at = now() + make_interval(secs => :leaseMs::int / 1000.0)
    from due d where j.id = d.id and not d.unknown_outcome and not d.too_late
  returning j.id, j.client_id, j.printer_id, j.attempts, j.body, j.created_at
)
select c.id, c.client_id, c.printer_id, c.attempts as attempt, c.body, p.host, p.port, c.created_at
  from claimed c join printer p on p.id = c.printer_id;

-- name: print-failed
with job as (
  update print_job set last_error = :error::text, due_at = :retryAt::timestamptz, writing_attempt = null
   where id = :id::int and attempts = :attempt::int and status = 'Queued'
  returning printer_id
)
update printer p set last_error = :error::text, last_error_at = now() from job where p.id = job.printer_id;

-- name: print-next-due
select min(due_at) as due_at from print_job where status = 'Queued';

-- name: print-retention
delete from print_job where ctid = any(array(
  select ctid from print_job where status <> 'Queued' and created_at < now() - make_interval(days => :days::int) order by id limit :batch::int
)) returning id;

-- name: print-sent
with job as (
  update print_job set status = 'Sent', sent_at = now(), last_error = null, due_at = now()
   where id = :id::int and writing_attempt = :attempt::int
  returning printer_id
)
update printer p set last_printed_at = now(), last_error = null from job where p.id = job.printer_id;

-- name: print-writing
update print_job set writing_attempt = :attempt::int
 where id = :id::int and attempts = :attempt::int and status = 'Queued' and writing_attempt is null
returning id;

-- name: product-by-code
select pc.product_id, p.sku, p.requires_serial from product_code pc join product p on p.id = pc.product_id
 where pc.client_id = :clientId and pc.code = :code order by pc.kind, pc.product_id limit 1;

-- name: record-refusal
insert into outbox_event (event_id, client_id, wall_id, type, occurred_at, data)
values (:eventId, :clientId, :wallId, 'command.refused', now(), :data::jsonb) on conflict (event_id) do nothing;

-- name: record-refusal-fenced
with fence as (
  select 1 from wall where id = :wallId::int and client_id = :clientId::int and version = :expectedVersion::bigint
), refused as (
  insert into outbox_event (event_id, client_id, wall_id, type, occurred_at, data)
  select :eventId::uuid, :clientId::int, :wallId::int, 'command.refused', now(), :data::jsonb from fence
  on conflict (event_id) do nothing
  returning 1
)
select sorting_write_check((select count(*) from fence) + 0 * (select count(*) from refused), 0, 0) as ok;

-- name: reserve-ids
select (select array_agg(nextval('sort_box_item_id_seq')::int) from generate_series(1, :items::int)) as item_ids,
       (select array_agg(nextval('sorter_session_id_seq')::int) from generate_series(1, :sessions::int)) as session_ids;

-- name: resolve-wall
select id from wall where client_id = :clientId::int and id = :wallId::int;

-- name: resolve-wall-of-item
select wall_id from sort_box_item where client_id = :clientId::int and id = :itemId::int;

-- name: resolve-wall-of-session
select wall_id from sorter_session where client_id = :clientId::int and token = :token::text;

-- name: resolve-wall-of-slot
select wall_id from sort_box where client_id = :clientId::int and crc = :crc::text;

-- name: scan-candidates
select c.order_item_id, c.qty, c.confirmed_qty, c.pending_qty, (select row_to_json(j) from (select o.id, o.warehouse_id as "warehouseId", o.priority, o.order_date as "orderDate", o.status, o.is_drop_ship as "isDropShip",
       (select json_agg(json_build_object('id', l.id, 'orderId', l.order_id, 'sku', l.sku, 'qty', l.qty, 'confirmedQty', l.confirmed_qty, 'pendingQty', l.pending_qty) order by l.id)
          from order_item l where l.client_id = o.client_id and l.order_id = o.id) as lines,
       coalesce((select json_agg(po.picklist_id order by po.picklist_id) from picklist_order po
                  where po.client_id = o.client_id and po.order_id = o.id), '[]') as "picklistIds"
          from orders o where o.client_id = :clientId::int and o.id = c.order_id) j) as order
  from (
    select l.id as order_item_id, l.order_id, l.qty, l.confirmed_qty, l.pending_qty, l.priority_rank, l.order_date
      from order_item l
      cross join lateral (
        select o.status, o.is_drop_ship,
               -- Per line, by key (a subquery in the select list is never turned into a join).
               (select sb.id from sort_box sb where sb.client_id = :clientId::int and sb.order_id = o.id) as slot_id,
               (:picklistId::int is null or exists (select 1 from picklist_order po
                                                     where po.client_id = :clientId::int and po.picklist_id = :picklistId::int and po.order_id = o.id)) as in_picklist
          from orders o where o.client_id = :clientId::int and o.id = l.order_id offset 0) o
     where l.client_id = :clientId::int and l.warehouse_id = :warehouseId::int and l.sku = :sku::text and l.is_open
       and o.status = 'Unshipped' and not o.is_drop_ship and o.slot_id is null and o.in_picklist
     order by l.priority_rank desc, l.order_date, l.order_id
     limit 4
  ) c
 order by c.priority_rank desc, c.order_date, c.order_id;

-- name: scan-candidates-any-warehouse
select c.order_item_id, c.qty, c.confirmed_qty, c.pending_qty, (select row_to_json(j) from (select o.id, o.warehouse_id as "warehouseId", o.priority, o.order_date as "orderDate", o.status, o.is_drop_ship as "isDropShip",
       (select json_agg(json_build_object('id', l.id, 'orderId', l.order_id, 'sku', l.sku, 'qty', l.qty, 'confirmedQty', l.confirmed_qty, 'pendingQty', l.pending_qty) order by l.id)
          from order_item l where l.client_id = o.client_id and l.order_id = o.id) as lines,
       coalesce((select json_agg(po.picklist_id order by po.picklist_id) from picklist_order po
                  where po.client_id = o.client_id and po.order_id = o.id), '[]') as "picklistIds"
          from orders o where o.client_id = :clientId::int and o.id = c.order_id) j) as order
  from (
    select l.id as order_item_id, l.order_id, l.qty, l.confirmed_qty, l.pending_qty, l.priority_rank, l.order_date
      from order_item l
      cross join lateral (
        select o.status, o.is_drop_ship,
               -- Per line, by key (a subquery in the select list is never turned into a join).
               (select sb.id from sort_box sb where sb.client_id = :clientId::int and sb.order_id = o.id) as slot_id,
               (:picklistId::int is null or exists (select 1 from picklist_order po
                                                     where po.client_id = :clientId::int and po.picklist_id = :picklistId::int and po.order_id = o.id)) as in_picklist
          from orders o where o.client_id = :clientId::int and o.id = l.order_id offset 0) o
     where l.client_id = :clientId::int and true and l.sku = :sku::text and l.is_open
       and o.status = 'Unshipped' and not o.is_drop_ship and o.slot_id is null and o.in_picklist
     order by -l.priority_rank, l.order_date, l.order_id
     limit 4
  ) c
 order by c.priority_rank desc, c.order_date, c.order_id;

-- name: scan-why-no-order
select (select w.name from warehouse w where w.client_id = :clientId and w.id = :warehouseId::int) as warehouse_name,
       count(*)::int as orders,
       count(*) filter (where oi.qty > oi.confirmed_qty + oi.pending_qty)::int as needing,
       count(*) filter (where oi.confirmed_qty >= oi.qty)::int as sorted
  from order_item oi
  cross join lateral (select o.status, o.is_drop_ship from orders o where o.client_id = oi.client_id and o.id = oi.order_id offset 0) o
 where oi.client_id = :clientId and oi.sku = :sku
   and (:warehouseId::int is null or oi.warehouse_id = :warehouseId::int)
   and o.status = 'Unshipped' and not o.is_drop_ship
   and (:picklistId::int is null or exists (select 1 from picklist_order po
                                             where po.client_id = oi.client_id and po.picklist_id = :picklistId::int and po.order_id = oi.order_id));

-- name: serial-holder
select i.id as item_id, i.order_id, i.wall_id, w.name as wall_name, i.crc,
       (select sb.position from sort_box sb where sb.id = i.sort_box_id) as position
  from sort_box_item i join wall w on w.id = i.wall_id
 where i.client_id = :clientId::int and i.product_id = :productId::int and i.serial = :serial::text;

-- name: session-by-token
select s.id, s.token, s.client_id as "clientId", s.wall_id as "wallId", s.user_id as "userId", s.picklist_id as "picklistId",
       s.color, s.status, s.started_at as "startedAt", s.last_activity_at as "lastActivityAt", s.expires_at as "expiresAt",
       s.ended_at as "endedAt", s.end_reason as "endReason" from sorter_session s where s.token = :token and s.client_id = :clientId and s.wall_id = :wallId;

-- name: stats-apply-batch
with src as (select distinct on (e.event_id) e.*
    from jsonb_to_recordset(:events::jsonb) as e(event_id uuid, client_id int, wall_id int, type text, occurred_at timestamptz, data jsonb)), facts as (
  select e.client_id, w.id as wall_id, w.warehouse_id,
         case when (e.type = 'command.refused' and coalesce(e.data->>'command', '') = 'item.scan') then (e.data->>'userId')::int
              when e.type = 'command.refused' then null else (e.data->'item'->>'userId')::int end as user_id,
         case when e.type = 'command.refused' then null else e.data->'item'->>'sku' end as sku,
         case when (e.type = 'command.refused' and coalesce(e.data->>'command', '') = 'item.scan') then coalesce(e.data->>'barcodeInputMethod', 'Scanned')
              when e.type in ('command.refused', 'sort-box.completed') then null
              else e.data->'item'->>'barcodeInputMethod' end as method,
         case when e.type = 'command.refused' then null else coalesce(e.data->'item'->>'crc', e.data->'sortBox'->>'crc') end as crc,
         case when e.type = 'command.refused' then null else coalesce((e.data->'item'->>'position')::int, (e.data->'sortBox'->>'position')::int) end as position,
         (e.type = 'sort-box-item.created')::int as scans,
         (e.type = 'command.refused' and coalesce(e.data->>'command', '') = 'item.scan')::int as failed_scans,
         (e.type = 'sort-box-item.confirmed')::int as confirmed_items,
         case when e.type = 'sort-box-item.confirmed'
              then coalesce((e.data->'item'->>'confirmedUnits')::int, (e.data->'item'->>'units')::int, 1) else 0 end as confirmed_units,
         (e.type = 'sort-box-item.cancelled')::int as cancelled_items,
         (e.type = 'sort-box.completed')::int as sorted_orders,
         case when e.type = 'sort-box-item.confirmed'
              then round(extract(epoch from (coalesce((e.data->'item'->>'confirmedAt')::timestamptz, e.occurred_at)
                                             - (e.data->'item'->>'createdAt')::timestamptz)) * 1000)::bigint
              else 0 end as confirm_ms,
         (e.type = 'command.refused')::int as refusals,
         case when e.type = 'command.refused' then e.data->>'code' end as reason,
         date_trunc('hour', e.occurred_at, 'UTC') as utc_hour, (e.occurred_at at time zone 'UTC')::date as utc_day,
         date_trunc('hour', e.occurred_at, z.tz) as local_hour, (e.occurred_at at time zone z.tz)::date as local_day
    from src e
    left join wall w on w.id = e.wall_id and w.client_id = e.client_id
    left join warehouse wh on wh.client_id = w.client_id and wh.id = w.warehouse_id
   cross join lateral (select coalesce(wh.time_zone, 'UTC') as tz) z
   where e.type in ('sort-box-item.created', 'sort-box-item.confirmed', 'sort-box-item.cancelled', 'sort-box.completed', 'command.refused')
),
grouped as (
  select client_id, wall_id, warehouse_id, user_id, sku, method, crc, reason, utc_hour, utc_day, local_hour, local_day,
         max(position) as position, sum(scans)::int as scans, sum(failed_scans)::int as failed_scans, sum(confirmed_items)::int as confirmed_items, sum(confirmed_units)::int as confirmed_units, sum(cancelled_items)::int as cancelled_items, sum(sorted_orders)::int as sorted_orders, sum(confirm_ms)::bigint as confirm_ms, sum(refusals)::int as refusals
    from facts
   group by client_id, wall_id, warehouse_id, user_id, sku, method, crc, reason, utc_hour, utc_day, local_hour, local_day
),
expanded as (
  select g.client_id, s.scope, s.scope_id, d.dim, d.dim_key, s.bucket_hour, s.bucket_day,
         case when d.dim = 4 then g.position end as position,
         g.scans, g.failed_scans, g.confirmed_items, g.confirmed_units, g.cancelled_items, g.sorted_orders, g.confirm_ms, g.refusals
    from grouped g
   cross join lateral (values (0::smallint, 0, g.utc_hour, g.utc_day),
                              (1::smallint, g.warehouse_id, g.local_hour, g.local_day),
                              (2::smallint, g.wall_id, g.local_hour, g.local_day)) s(scope, scope_id, bucket_hour, bucket_day)
   cross join lateral (values (0::smallint, ''::text), (1::smallint, g.user_id::text), (2::smallint, g.sku),
                              (3::smallint, g.method), (4::smallint, g.crc), (5::smallint, g.reason)) d(dim, dim_key)
   where s.scope_id is not null and d.dim_key is not null
     and (d.dim <> 3 or s.scope = 2)
     and (d.dim <> 4 or s.scope <> 1)
),
hours as (insert into stats_hour (client_id, scope, scope_id, dim, dim_key, bucket, scans, failed_scans, confirmed_items, confirmed_units, cancelled_items, sorted_orders, confirm_ms, refusals, position)
  select client_id, scope, scope_id, dim, dim_key, bucket_hour, sum(scans), sum(failed_scans), sum(confirmed_items), sum(confirmed_units), sum(cancelled_items), sum(sorted_orders), sum(confirm_ms), sum(refusals), max(position)
    from expanded where not (dim = 4 and scope = 0)
   group by client_id, scope, scope_id, dim, dim_key, bucket_hour
  on conflict (client_id, scope, scope_id, dim, bucket, dim_key) do update
     set scans = stats_hour.scans + excluded.scans, failed_scans = stats_hour.failed_scans + excluded.failed_scans, confirmed_items = stats_hour.confirmed_items + excluded.confirmed_items, confirmed_units = stats_hour.confirmed_units + excluded.confirmed_units, cancelled_items = stats_hour.cancelled_items + excluded.cancelled_items, sorted_orders = stats_hour.sorted_orders + excluded.sorted_orders, confirm_ms = stats_hour.confirm_ms + excluded.confirm_ms, refusals = stats_hour.refusals + excluded.refusals, position = greatest(stats_hour.position, excluded.position) returning 1),
days as (insert into stats_day (client_id, scope, scope_id, dim, dim_key, bucket, scans, failed_scans, confirmed_items, confirmed_units, cancelled_items, sorted_orders, confirm_ms, refusals, position)
  select client_id, scope, scope_id, dim, dim_key, bucket_day, sum(scans), sum(failed_scans), sum(confirmed_items), sum(confirmed_units), sum(cancelled_items), sum(sorted_orders), sum(confirm_ms), sum(refusals), max(position)
    from expanded where true
   group by client_id, scope, scope_id, dim, dim_key, bucket_day
  on conflict (client_id, scope, scope_id, dim, bucket, dim_key) do update
     set scans = stats_day.scans + excluded.scans, failed_scans = stats_day.failed_scans + excluded.failed_scans, confirmed_items = stats_day.confirmed_items + excluded.confirmed_items, confirmed_units = stats_day.confirmed_units + excluded.confirmed_units, cancelled_items = stats_day.cancelled_items + excluded.cancelled_items, sorted_orders = stats_day.sorted_orders + excluded.sorted_orders, confirm_ms = stats_day.confirm_ms + excluded.confirm_ms, refusals = stats_day.refusals + excluded.refusals, position = greatest(stats_day.position, excluded.position) returning 1)
select (select count(*) from facts)::int as counted, (select count(*) from hours)::int as hour_rows, (select count(*) from days)::int as day_rows;

-- name: stats-apply-range
with src as (select o.event_id, o.client_id, o.wall_id, o.type, o.occurred_at, o.data from outbox_event o
   where o.id > :after::bigint and o.id <= :through::bigint), facts as (
  select e.client_id, w.id as wall_id, w.warehouse_id,
         case when (e.type = 'command.refused' and coalesce(e.data->>'command', '') = 'item.scan') then (e.data->>'userId')::int
              when e.type = 'command.refused' then null else (e.data->'item'->>'userId')::int end as user_id,
         case when e.type = 'command.refused' then null else e.data->'item'->>'sku' end as sku,
         case when (e.type = 'command.refused' and coalesce(e.data->>'command', '') = 'item.scan') then coalesce(e.data->>'barcodeInputMethod', 'Scanned')
              when e.type in ('command.refused', 'sort-box.completed') then null
              else e.data->'item'->>'barcodeInputMethod' end as method,
         case when e.type = 'command.refused' then null else coalesce(e.data->'item'->>'crc', e.data->'sortBox'->>'crc') end as crc,
         case when e.type = 'command.refused' then null else coalesce((e.data->'item'->>'position')::int, (e.data->'sortBox'->>'position')::int) end as position,
         (e.type = 'sort-box-item.created')::int as scans,
         (e.type = 'command.refused' and coalesce(e.data->>'command', '') = 'item.scan')::int as failed_scans,
         (e.type = 'sort-box-item.confirmed')::int as confirmed_items,
         case when e.type = 'sort-box-item.confirmed'
              then coalesce((e.data->'item'->>'confirmedUnits')::int, (e.data->'item'->>'units')::int, 1) else 0 end as confirmed_units,
         (e.type = 'sort-box-item.cancelled')::int as cancelled_items,
         (e.type = 'sort-box.completed')::int as sorted_orders,
         case when e.type = 'sort-box-item.confirmed'
              then round(extract(epoch from (coalesce((e.data->'item'->>'confirmedAt')::timestamptz, e.occurred_at)
                                             - (e.data->'item'->>'createdAt')::timestamptz)) * 1000)::bigint
              else 0 end as confirm_ms,
         (e.type = 'command.refused')::int as refusals,
         case when e.type = 'command.refused' then e.data->>'code' end as reason,
         date_trunc('hour', e.occurred_at, 'UTC') as utc_hour, (e.occurred_at at time zone 'UTC')::date as utc_day,
         date_trunc('hour', e.occurred_at, z.tz) as local_hour, (e.occurred_at at time zone z.tz)::date as local_day
    from src e
    left join wall w on w.id = e.wall_id and w.client_id = e.client_id
    left join warehouse wh on wh.client_id = w.client_id and wh.id = w.warehouse_id
   cross join lateral (select coalesce(wh.time_zone, 'UTC') as tz) z
   where e.type in ('sort-box-item.created', 'sort-box-item.confirmed', 'sort-box-item.cancelled', 'sort-box.completed', 'command.refused')
),
grouped as (
  select client_id, wall_id, warehouse_id, user_id, sku, method, crc, reason, utc_hour, utc_day, local_hour, local_day,
         max(position) as position, sum(scans)::int as scans, sum(failed_scans)::int as failed_scans, sum(confirmed_items)::int as confirmed_items, sum(confirmed_units)::int as confirmed_units, sum(cancelled_items)::int as cancelled_items, sum(sorted_orders)::int as sorted_orders, sum(confirm_ms)::bigint as confirm_ms, sum(refusals)::int as refusals
    from facts
   group by client_id, wall_id, warehouse_id, user_id, sku, method, crc, reason, utc_hour, utc_day, local_hour, local_day
),
expanded as (
  select g.client_id, s.scope, s.scope_id, d.dim, d.dim_key, s.bucket_hour, s.bucket_day,
         case when d.dim = 4 then g.position end as position,
         g.scans, g.failed_scans, g.confirmed_items, g.confirmed_units, g.cancelled_items, g.sorted_orders, g.confirm_ms, g.refusals
    from grouped g
   cross join lateral (values (0::smallint, 0, g.utc_hour, g.utc_day),
                              (1::smallint, g.warehouse_id, g.local_hour, g.local_day),
                              (2::smallint, g.wall_id, g.local_hour, g.local_day)) s(scope, scope_id, bucket_hour, bucket_day)
   cross join lateral (values (0::smallint, ''::text), (1::smallint, g.user_id::text), (2::smallint, g.sku),
                              (3::smallint, g.method), (4::smallint, g.crc), (5::smallint, g.reason)) d(dim, dim_key)
   where s.scope_id is not null and d.dim_key is not null
     and (d.dim <> 3 or s.scope = 2)
     and (d.dim <> 4 or s.scope <> 1)
),
hours as (insert into stats_hour (client_id, scope, scope_id, dim, dim_key, bucket, scans, failed_scans, confirmed_items, confirmed_units, cancelled_items, sorted_orders, confirm_ms, refusals, position)
  select client_id, scope, scope_id, dim, dim_key, bucket_hour, sum(scans), sum(failed_scans), sum(confirmed_items), sum(confirmed_units), sum(cancelled_items), sum(sorted_orders), sum(confirm_ms), sum(refusals), max(position)
    from expanded where not (dim = 4 and scope = 0)
   group by client_id, scope, scope_id, dim, dim_key, bucket_hour
  on conflict (client_id, scope, scope_id, dim, bucket, dim_key) do update
     set scans = stats_hour.scans + excluded.scans, failed_scans = stats_hour.failed_scans + excluded.failed_scans, confirmed_items = stats_hour.confirmed_items + excluded.confirmed_items, confirmed_units = stats_hour.confirmed_units + excluded.confirmed_units, cancelled_items = stats_hour.cancelled_items + excluded.cancelled_items, sorted_orders = stats_hour.sorted_orders + excluded.sorted_orders, confirm_ms = stats_hour.confirm_ms + excluded.confirm_ms, refusals = stats_hour.refusals + excluded.refusals, position = greatest(stats_hour.position, excluded.position) returning 1),
days as (insert into stats_day (client_id, scope, scope_id, dim, dim_key, bucket, scans, failed_scans, confirmed_items, confirmed_units, cancelled_items, sorted_orders, confirm_ms, refusals, position)
  select client_id, scope, scope_id, dim, dim_key, bucket_day, sum(scans), sum(failed_scans), sum(confirmed_items), sum(confirmed_units), sum(cancelled_items), sum(sorted_orders), sum(confirm_ms), sum(refusals), max(position)
    from expanded where true
   group by client_id, scope, scope_id, dim, dim_key, bucket_day
  on conflict (client_id, scope, scope_id, dim, bucket, dim_key) do update
     set scans = stats_day.scans + excluded.scans, failed_scans = stats_day.failed_scans + excluded.failed_scans, confirmed_items = stats_day.confirmed_items + excluded.confirmed_items, confirmed_units = stats_day.confirmed_units + excluded.confirmed_units, cancelled_items = stats_day.cancelled_items + excluded.cancelled_items, sorted_orders = stats_day.sorted_orders + excluded.sorted_orders, confirm_ms = stats_day.confirm_ms + excluded.confirm_ms, refusals = stats_day.refusals + excluded.refusals, position = greatest(stats_day.position, excluded.position) returning 1)
select (select count(*) from facts)::int as counted, (select count(*) from hours)::int as hour_rows, (select count(*) from days)::int as day_rows;

-- name: stats-lock-for-batch
select pg_advisory_xact_lock(:lockKey::bigint), set_config('work_mem', '64MB', true);

-- name: wall-load
select json_build_object(
  'wall', (select row_to_json(w) from (
             select id, client_id as "clientId", name, is_active as "isActive", max_sorters as "maxSorters", warehouse_id as "warehouseId",
                    workflow, flow_direction as "flowDirection", segment_rows as "segmentRows", segment_columns as "segmentColumns",
                    created_at as "createdAt", version
               from wall where id = :wallId and client_id = :clientId) w),
  'slots', coalesce((select json_agg(s) from (
             select id, wall_id as "wallId", serial_number as "serialNumber", crc, position, status, order_id as "orderId", assigned_at as "assignedAt"
               from sort_box where wall_id = :wallId) s), '[]'),
  'sessions', coalesce((select json_agg(c) from (
             select s.id, s.token, s.client_id as "clientId", s.wall_id as "wallId", s.user_id as "userId", s.picklist_id as "picklistId",
       s.color, s.status, s.started_at as "startedAt", s.last_activity_at as "lastActivityAt", s.expires_at as "expiresAt",
       s.ended_at as "endedAt", s.end_reason as "endReason" from sorter_session s where s.wall_id = :wallId and s.status = 'Connected') c), '[]'),
  'items', coalesce((select json_agg(i) from (
             select p.id, p.wall_id as "wallId", p.sort_box_id as "sortBoxId", p.crc, p.order_id as "orderId", p.order_item_id as "orderItemId",
       p.product_id as "productId", p.sku, p.barcode, p.barcode_input_method as "barcodeInputMethod", p.user_id as "userId",
       p.session_id as "sessionId", p.color, p.units, p.confirmed_units as "confirmedUnits", p.status, p.created_at as "createdAt",
       p.confirmed_at as "confirmedAt", p.cancelled_at as "cancelledAt", p.requires_serial as "requiresSerial", p.serial from sort_box_item p where p.wall_id = :wallId and p.status = 'PendingConfirmation') i), '[]'),
  'confirmed', coalesce((select json_agg(json_build_object('slotId', sb.id, 'orderId', sb.order_id, 'count', c.count)) from sort_box sb
             cross join lateral (select count(*) as count from sort_box_item c
                                  where c.sort_box_id = sb.id and c.order_id = sb.order_id and c.status = 'Confirmed' offset 0) c
            where sb.wall_id = :wallId and sb.order_id is not null and c.count > 0), '[]'),
  'orders', coalesce((select json_agg(o) from sort_box sb
             cross join lateral (select x.id, x.warehouse_id as "warehouseId", x.priority, x.order_date as "orderDate", x.status, x.is_drop_ship as "isDropShip",
       (select json_agg(json_build_object('id', l.id, 'orderId', l.order_id, 'sku', l.sku, 'qty', l.qty, 'confirmedQty', l.confirmed_qty, 'pendingQty', l.pending_qty) order by l.id)
          from order_item l where l.client_id = x.client_id and l.order_id = x.id) as lines,
       coalesce((select json_agg(po.picklist_id order by po.picklist_id) from picklist_order po
                  where po.client_id = x.client_id and po.order_id = x.id), '[]') as "picklistIds" from orders x where x.client_id = sb.client_id and x.id = sb.order_id offset 0) o
            where sb.wall_id = :wallId and sb.order_id is not null), '[]'),
  'itemIds', (select json_agg(nextval('sort_box_item_id_seq')) from generate_series(1, :itemIds::int)),
  'sessionIds', (select json_agg(nextval('sorter_session_id_seq')) from generate_series(1, :sessionIds::int))
) as state;

-- name: wall-pending-items
select 
coalesce((
  select json_agg(json_build_object(
           'id', i.id, 'wallId', i.wall_id, 'status', i.status, 'units', i.units, 'confirmedUnits', i.confirmed_units,
           'orderId', i.order_id, 'sku', i.sku, 'barcode', i.barcode, 'barcodeInputMethod', i.barcode_input_method,
           'userId', i.user_id, 'color', i.color, 'createdAt', i.created_at, 'confirmedAt', i.confirmed_at, 'cancelledAt', i.cancelled_at,
           'requiresSerial', i.requires_serial, 'serial', i.serial,
           'qty', l.qty, 'confirmedQty', l.confirmed_qty, 'pendingQty', l.pending_qty,
           'crc', coalesce(b.crc, i.crc), 'position', coalesce(b.position, 0),
           'userName', e.first_name || ' ' || e.last_name) order by i.created_at, i.id)
    from sort_box_item i
    join order_item l on l.id = i.order_item_id
    join employee e on e.id = i.user_id
    left join sort_box b on b.id = i.sort_box_id
   where i.wall_id = w.id and i.status = 'PendingConfirmation'), '[]') as pending
  from wall w
 where w.id = :wallId and w.client_id = :clientId;

-- name: wall-progress
select coalesce((select sum(greatest(l.qty - l.confirmed_qty, 0))
                   from sort_box b join order_item l on l.client_id = b.client_id and l.order_id = b.order_id
                  where b.wall_id = w.id and b.order_id is not null), 0)::int as "unitsLeft",
       (select count(*) from sort_box b where b.wall_id = w.id and b.order_id is not null)::int as "ordersInSlots",
       coalesce((select json_agg(json_build_object('crc', b.crc, 'position', b.position, 'orderId', b.order_id,
                                                   'since', coalesce((select max(i.confirmed_at) from sort_box_item i
                                                                       where i.sort_box_id = b.id and i.order_id = b.order_id and i.status = 'Confirmed'),
                                                                     b.assigned_at)) order by b.position)
                   from sort_box b where b.wall_id = w.id and b.status = 'Complete'), '[]') as complete
  from wall w
 where w.id = :wallId and w.client_id = :clientId;

-- name: wall-view
select p.printer_id as "printerId", coalesce(p.auto_print, false) as "autoPrint",
       json_build_object('id', w.id, 'clientId', w.client_id, 'name', w.name, 'isActive', w.is_active, 'maxSorters', w.max_sorters,
         'warehouseId', w.warehouse_id, 'workflow', w.workflow, 'flowDirection', w.flow_direction,
         'segmentRows', w.segment_rows, 'segmentColumns', w.segment_columns, 'createdAt', w.created_at) as wall,
       coalesce((select json_agg(json_build_object('id', b.id, 'wallId', b.wall_id, 'serialNumber', b.serial_number, 'crc', b.crc,
                                                   'position', b.position, 'status', b.status, 'orderId', b.order_id) order by b.position)
                   from sort_box b where b.wall_id = w.id), '[]') as slots,
       coalesce((select json_agg(json_build_object('id', s.id, 'token', s.token, 'wallId', s.wall_id, 'userId', s.user_id,
                                                   'picklistId', s.picklist_id, 'color', s.color, 'status', s.status,
                                                   'startedAt', s.started_at, 'lastActivityAt', s.last_activity_at, 'expiresAt', s.expires_at,
                                                   'endedAt', s.ended_at, 'endReason', s.end_reason,
                                                   'userName', e.first_name || ' ' || e.last_name) order by s.started_at, s.id)
                   from sorter_session s join employee e on e.id = s.user_id
                  where s.wall_id = w.id and s.status = 'Connected'), '[]') as sessions,
       
coalesce((
  select json_agg(json_build_object(
           'id', i.id, 'wallId', i.wall_id, 'status', i.status, 'units', i.units, 'confirmedUnits', i.confirmed_units,
           'orderId', i.order_id, 'sku', i.sku, 'barcode', i.barcode, 'barcodeInputMethod', i.barcode_input_method,
           'userId', i.user_id, 'color', i.color, 'createdAt', i.created_at, 'confirmedAt', i.confirmed_at, 'cancelledAt', i.cancelled_at,
           'requiresSerial', i.requires_serial, 'serial', i.serial,
           'qty', l.qty, 'confirmedQty', l.confirmed_qty, 'pendingQty', l.pending_qty,
           'crc', coalesce(b.crc, i.crc), 'position', coalesce(b.position, 0),
           'userName', e.first_name || ' ' || e.last_name) order by i.created_at, i.id)
    from sort_box_item i
    join order_item l on l.id = i.order_item_id
    join employee e on e.id = i.user_id
    left join sort_box b on b.id = i.sort_box_id
   where i.wall_id = w.id and i.status = 'PendingConfirmation'), '[]') as pending
  from wall w
  left join wall_printer p on p.wall_id = w.id
 where w.id = :wallId and w.client_id = :clientId;

-- name: warehouse-exists
select id from warehouse where client_id = :clientId and id = :warehouseId;

-- name: warm-actor-connection
select 1 from wall where false
union all
select 1 from sort_box where false
union all
select 1 from sorter_session where false
union all
select 1 from sort_box_item where false
union all
select 1 from orders where false
union all
select 1 from order_item where false
union all
select 1 from picklist_order where false
union all
select 1 from product_code where false
union all
select 1 from product where false
union all
select 1 from outbox_event where false
union all
select 1 from applied_command where false;

-- name: webhook-claim
with due as (
  select p.event_id, p.subscription_id from webhook_pending p
   where p.due_at <= now() and p.attempts < :maxAttempts::int order by p.due_at limit :limit::int for update skip locked
), claimed as (
  update webhook_pending p set attempts = p.attempts + 1, due_at = now() + make_interval(secs => :leaseMs::int / 1000.0)
    from due where p.event_id = due.event_id and p.subscription_id = due.subscription_id
  returning p.event_id, p.subscription_id, p.client_id, p.attempts
), stale as (
  update webhook_delivery d set status = 'failed', error = :unrecorded::text
    from claimed c where d.subscription_id = c.subscription_id and d.event_id = c.event_id and d.status = 'pending' and d.attempt < c.attempts
), orphan as (
  -- The event is gone from the outbox (the retention keeps events with pending deliveries: not expected).
  delete from webhook_pending p using claimed c
   where p.event_id = c.event_id and p.subscription_id = c.subscription_id
     and not exists (select 1 from outbox_event o where o.event_id = c.event_id)
), attempt as (
  insert into webhook_delivery (client_id, subscription_id, event_id, event_type, attempt, status, error, attempted_at)
  select c.client_id, c.subscription_id, c.event_id, o.type, c.attempts,
         case when s.is_active then 'pending' else 'failed' end, case when s.is_active then null else :inactive::text end, now()
    from claimed c
    join webhook_subscription s on s.id = c.subscription_id
    join outbox_event o on o.event_id = c.event_id
  returning id, event_id, subscription_id
)
select c.subscription_id, c.attempts as attempt, s.url, s.secret, s.is_active, a.id::text as delivery_id,
       o.event_id, o.type, o.occurred_at, o.client_id, o.wall_id, o.data
  from claimed c
  join webhook_subscription s on s.id = c.subscription_id
  join outbox_event o on o.event_id = c.event_id
  left join attempt a on a.event_id = c.event_id and a.subscription_id = c.subscription_id;

-- name: webhook-failed
with attempt as (
  update webhook_delivery set status = 'failed', response_status = :responseStatus::int, error = :error::text,
         duration_ms = :durationMs::int, next_attempt_at = :retryAt::timestamptz
   where id = :deliveryId::bigint
), again as (
  update webhook_pending set due_at = :retryAt::timestamptz
   where :retryAt::timestamptz is not null and event_id = :eventId::uuid and subscription_id = :subscriptionId::int
), gone as (
  delete from webhook_pending
   where :retryAt::timestamptz is null and event_id = :eventId::uuid and subscription_id = :subscriptionId::int
  returning client_id
)
insert into failed_job (queue, job_name, job_id, data, error, attempts)
select 'webhooks', 'webhook.deliver', 'webhook_' || :eventId::text || '_' || :subscriptionId::text, :job::jsonb, :error::text, :attempts::int from gone
on conflict (queue, job_id) do update set error = excluded.error, attempts = excluded.attempts, failed_at = now();

-- name: webhook-next-due
select min(due_at) as due_at from webhook_pending where attempts < :maxAttempts::int;

-- name: webhook-schedule
with scheduled as (
  insert into webhook_pending (event_id, subscription_id, client_id)
  select o.event_id, s.id, o.client_id
    from outbox_event o
    join webhook_subscription s on s.client_id = o.client_id and s.is_active and ('*' = any(s.events) or o.type = any(s.events))
   where o.id > :after::bigint and o.id <= :through::bigint
     and o.type <> all(array['command.refused', 'lights.mode', 'lights.controller', 'lights.button']::text[])
  on conflict do nothing
  returning 1
)
select (select count(*) from scheduled)::int as scheduled;

-- name: webhook-succeeded
with attempt as (
  update webhook_delivery set status = 'succeeded', response_status = :responseStatus::int, error = null, duration_ms = :durationMs::int, next_attempt_at = null
   where id = :deliveryId::bigint
)
delete from webhook_pending where event_id = :eventId::uuid and subscription_id = :subscriptionId::int;
