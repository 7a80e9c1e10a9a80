export * from './client.entity';
export * from './client-settings.entity';
export * from './employee.entity';
export * from './warehouse.entity';
export * from './product.entity';
export * from './order.entity';
export * from './picklist.entity';
export * from './wall.entity';
export * from './sort-box.entity';
export * from './sorter-session.entity';
export * from './sort-box-item.entity';
export * from './outbox-event.entity';
export * from './audit-log.entity';
export * from './applied-command.entity';
export * from './webhook-subscription.entity';
export * from './webhook-delivery.entity';
export * from './transparency-code.entity';
export * from './wall-versions';

import { Client } from './client.entity';
import { ClientSettings } from './client-settings.entity';
import { Employee } from './employee.entity';
import { Warehouse } from './warehouse.entity';
import { Product, ProductCode } from './product.entity';
import { Order, OrderItem } from './order.entity';
import { Picklist, PicklistOrder } from './picklist.entity';
import { Wall } from './wall.entity';
import { SortBox } from './sort-box.entity';
import { SorterSession } from './sorter-session.entity';
import { SortBoxItem } from './sort-box-item.entity';
import { OutboxEvent } from './outbox-event.entity';
import { AuditLog } from './audit-log.entity';
import { AppliedCommand } from './applied-command.entity';
import { WebhookSubscription } from './webhook-subscription.entity';
import { WebhookDelivery } from './webhook-delivery.entity';
import { TransparencyCode } from './transparency-code.entity';

export const ALL_ENTITIES = [
  Client, ClientSettings, Employee, Warehouse, Product, ProductCode, Order, OrderItem, Picklist, PicklistOrder,
  Wall, SortBox, SorterSession, SortBoxItem, OutboxEvent, AuditLog, AppliedCommand,
  WebhookSubscription, WebhookDelivery, TransparencyCode,
];
