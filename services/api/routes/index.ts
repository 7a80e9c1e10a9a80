import type { RouteDef } from '../http/route';
import { adminDataRoutes } from './admin-data.route';
import { adminEmployeesRoutes } from './admin-employees.route';
import { adminImportRoutes } from './admin-import.route';
import { adminSettingsRoutes } from './admin-settings.route';
import { autoLoginRoutes } from './auto-login.route';
import { auditLogsRoutes } from './audit-logs.route';
import { catalogRoutes as catalogPriceRoutes } from './catalog.route';
import { displaysRoutes } from './displays.route';
import { employeesRoutes } from './employees.route';
import { eventsRoutes } from './events.route';
import { geoRoutes } from './geo.route';
import { licensePlatesRoutes } from './license-plates.route';
import { lightsRoutes } from './lights.route';
import { insightsRoutes } from './insights.route';
import { ordersRoutes } from './orders.route';
import { printersRoutes } from './printers.route';
import { securityRoutes } from './security.route';
import { sessionsRoutes } from './sessions.route';
import { sortBoxItemsRoutes } from './sort-box-items.route';
import { sortBoxesRoutes } from './sort-boxes.route';
import { subscriptionsRoutes } from './subscriptions.route';
import { tokenRoute } from './token.route';
import { transparencyCodesRoutes } from './transparency-codes.route';
import { queueDashboardAccessRoute, queueDashboardSessionRoute } from './queue-dashboard.route';
import { wallsRoutes } from './walls.route';
import { webhooksRoutes } from './webhooks.route';

/** Routes outside /api/v1 (the token service, the queue dashboard's sign-in). */
export const rootRoutes: RouteDef[] = [tokenRoute, queueDashboardSessionRoute, queueDashboardAccessRoute];

/** Every operation under /api/v1, one file per resource. */
export const apiRoutes: RouteDef[] = [
  ...adminDataRoutes,
  ...adminImportRoutes,
  ...adminEmployeesRoutes,
  ...adminSettingsRoutes,
  ...employeesRoutes,
  ...securityRoutes,
  ...subscriptionsRoutes,
  ...wallsRoutes,
  ...lightsRoutes,
  ...sortBoxesRoutes,
  ...displaysRoutes,
  ...ordersRoutes,
  ...sessionsRoutes,
  ...sortBoxItemsRoutes,
  ...eventsRoutes,
  ...webhooksRoutes,
  ...transparencyCodesRoutes,
  ...geoRoutes,
  ...autoLoginRoutes,
  ...licensePlatesRoutes,
  ...printersRoutes,
  ...auditLogsRoutes,
  ...insightsRoutes,
];

/** The catalog price lookup, mounted under /catalog (or on CATALOG_PORT). */
export const catalogRoutes: RouteDef[] = [...catalogPriceRoutes];
