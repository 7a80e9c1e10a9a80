import { query } from '../../../../shared/db/named-sql';

/** The slot a shipper scanned, with the order it holds (null when empty) and its wall's name. */
export const slotToPrint = query<{ clientId: number; crc: string }, { order_id: number | null; position: number; wall_name: string }>('license-plate-slot', `
select sb.order_id, sb.position, w.name as wall_name from sort_box sb join wall w on w.id = sb.wall_id where sb.client_id = :clientId::int and sb.crc = :crc::text`);
