import { z } from 'zod';
import { WALL_WORKFLOWS } from '../../../shared/db/entities';
import { isManager } from '../../../shared/auth/roles';
import { FLOW_DIRECTIONS } from '../../../shared/domain/display-layout';
import { defineRoute, type RouteDef } from '../http/route';
import { idParam } from '../http/validation';
import { COMMAND_ERRORS } from '../http/request-headers';
import { createWall } from '../use-cases/walls/create-wall.use-case';
import { getWall, getWallProgress, listPendingItems } from '../use-cases/walls/get-wall.use-case';
import { listWalls } from '../use-cases/walls/list-walls.use-case';
import { updateWall } from '../use-cases/walls/edit-wall.use-case';
import { wallDetailDto, wallDto, wallProgressDto } from '../../../shared/dto/wall.dto';
import { pendingItemDto } from '../../../shared/dto/sorting.dto';
import { wallPrintingFields } from '../use-cases/printers/printer.dto';
import { assertPrinterExists, setWallPrinting, withPrinting } from '../use-cases/printers/printers.use-case';
import { assertWallExists } from '../commands/wall-resolver';

const wallFields = {
  name: z.string().trim().min(1).max(100).describe('Unique among the walls of your company, regardless of letter case; 1..100 characters, trimmed.'),
  isActive: z.boolean().describe('Must be true for sorters to connect and scan.'),
  maxSorters: z.number().int().min(1).max(6).describe('Maximum simultaneous sorters (sessions), 1..6.'),
  warehouseId: z
    .number()
    .int()
    .min(1)
    .max(2147483647)
    .nullable()
    .describe('The warehouse whose orders the wall sorts: one of your warehouses (PUT /admin/warehouses), else 400 on this field.'),
  workflow: z.enum(WALL_WORKFLOWS).describe('FreeSort: scans match any unshipped order of the warehouse; PicklistSort: a session names an open picklist.'),
  flowDirection: z.enum(FLOW_DIRECTIONS).describe('How slot positions run across the wall (GET /list-sortbox-displays).'),
  segmentRows: z.number().int().min(1).max(1000).nullable().describe('Rows of one segment of the wall, 1..1000.'),
  segmentColumns: z.number().int().min(1).max(1000).nullable().describe('Columns of one segment of the wall, 1..1000.'),
};

const createWallBody = z.object({
  name: wallFields.name,
  isActive: wallFields.isActive.optional().describe('Default true.'),
  maxSorters: wallFields.maxSorters.optional().describe('Maximum simultaneous sorters, 1..6. Default 6.'),
  warehouseId: wallFields.warehouseId.optional(),
  workflow: wallFields.workflow.optional().describe('Default FreeSort.'),
  flowDirection: wallFields.flowDirection.optional().describe('Default LeftToRight.'),
  segmentRows: wallFields.segmentRows.optional(),
  segmentColumns: wallFields.segmentColumns.optional(),
});

const updateWallBody = z.object({
  name: wallFields.name.optional(),
  isActive: wallFields.isActive.optional(),
  maxSorters: wallFields.maxSorters
    .optional()
    .describe('1..6. Lowering it below the connected sessions ends none of them: it only refuses new connections until fewer are connected.'),
  warehouseId: wallFields.warehouseId
    .optional()
    .describe('A warehouse of yours, or null. Refused with 409 slot-not-empty while slots of the wall hold orders.'),
  workflow: wallFields.workflow.optional(),
  flowDirection: wallFields.flowDirection.optional(),
  segmentRows: wallFields.segmentRows.optional(),
  segmentColumns: wallFields.segmentColumns.optional(),
  printerId: z
    .number()
    .int()
    .min(1)
    .max(2147483647)
    .nullable()
    .optional()
    .describe('The wall\'s label printer (POST /printers), or null for none; another id → 404 printer-not-found.'),
  autoPrint: z.boolean().optional().describe("Print an order's license plate on the wall's printer by itself when the order becomes complete. Default false."),
});

/** The Wall record with its printing fields (docs/api.md §12). */
const wallRecord = wallDto.extend(wallPrintingFields);
const wallDetailRecord = wallDetailDto.extend(wallPrintingFields);

const wallParams = z.object({ id: idParam.describe('Wall id') });

export const wallsRoutes: RouteDef[] = [
  defineRoute({
    method: 'post',
    path: '/walls',
    operationId: 'CreateWall',
    summary: 'Create a wall',
    description: 'Creates a wall without slots; attach them with PUT /walls/{id}/sort-boxes.',
    tags: ['Walls'],
    access: ['Manager'],
    body: createWallBody,
    response: wallRecord,
    errors: ['wall-name-taken'],
    handler: async ({ em, auth, body }) => withPrinting(em, auth.clientId, await createWall(em, auth.clientId, body)),
  }),
  defineRoute({
    method: 'get',
    path: '/walls',
    operationId: 'ListWalls',
    summary: "List your company's walls with their slot and connected-sorter counts",
    description: 'Oldest wall first (by id).',
    tags: ['Walls'],
    access: 'authenticated',
    response: z.array(wallRecord),
    handler: async ({ em, auth }) => withPrinting(em, auth.clientId, await listWalls(em, auth.clientId)),
  }),
  defineRoute({
    method: 'get',
    path: '/walls/{id}',
    operationId: 'GetWall',
    summary: 'Get a wall with its slots, connected sessions and pending scans',
    description:
      'Slots are ordered by position, sessions by start, pending items (scans waiting for confirmation: the lit slots) oldest first, each with its sorter\'s color and name. ' +
      'Session tokens of other employees are shown only to Managers and Admins (null for a Sorter), since a token lets its holder scan as that sorter. ' +
      'Every change answered before the read (a command of the wall, an edit through the API) is in it; a wall unchanged since it was last read is answered from memory, ' +
      'and a change made outside the service (SQL by hand) shows within WALL_VIEW_CACHE_MS (10 s unless set).',
    tags: ['Walls'],
    access: 'authenticated',
    params: wallParams,
    response: wallDetailRecord,
    errors: ['not-found'],
    handler: ({ preparedSql, auth, params, deps }) =>
      getWall(preparedSql, auth.clientId, params.id, { employeeId: auth.employeeId, seesAllTokens: isManager(auth.roles) }, deps.wallViews),
  }),
  defineRoute({
    method: 'get',
    path: '/walls/{id}/pending-items',
    operationId: 'ListWallPendingItems',
    summary: "List a wall's scans waiting for confirmation",
    description:
      'The SortBoxItem records of the wall in status PendingConfirmation, oldest first, each with its sorter\'s color and name (userName): ' +
      'the slots lit now. A Manager cancels a forgotten one with PATCH /sort-box-items/{id}/cancel.',
    tags: ['Walls'],
    access: 'authenticated',
    params: wallParams,
    response: z.array(pendingItemDto),
    errors: ['not-found'],
    handler: ({ preparedSql, auth, params }) => listPendingItems(preparedSql, auth.clientId, params.id),
  }),
  defineRoute({
    method: 'get',
    path: '/walls/{id}/progress',
    operationId: 'GetWallProgress',
    summary: "Get what is left of a wall's work and how long its Complete slots have waited",
    description:
      'The units the orders in the wall\'s slots still need, the slots holding orders, and each Complete slot with when it became Complete (its last confirm): ' +
      'the hub\'s header (units left, the oldest Complete slot\'s wait for the shipper).',
    tags: ['Walls'],
    access: 'authenticated',
    params: wallParams,
    response: wallProgressDto,
    errors: ['not-found'],
    handler: ({ preparedSql, auth, params }) => getWallProgress(preparedSql, auth.clientId, params.id),
  }),
  editWallRoute('patch', 'UpdateWall', 'Change a wall'),
  editWallRoute('put', 'UpdateWallByPut', 'Change a wall (the same edit as PATCH /walls/{id})'),
];

/**
 * PATCH (and PUT) /walls/{id}: the printing fields are the API's to write (they are not the sorting
 * workers' state); the others are the wall's command. The printer is checked first, the command decides
 * the rest, and the printing fields are written once it has: a refused edit changes neither.
 */
async function updateWallRecord(
  em: Parameters<typeof updateWall>[0],
  commands: Parameters<typeof updateWall>[1],
  auth: Parameters<typeof updateWall>[2],
  wallId: number,
  body: z.infer<typeof updateWallBody>,
) {
  const { printerId, autoPrint, ...changes } = body;
  if (printerId !== undefined && printerId !== null) {
    await assertWallExists(em, auth.clientId, wallId);
    await assertPrinterExists(em, auth.clientId, printerId);
  }
  const wall = await updateWall(em, commands, auth, wallId, changes);
  await setWallPrinting(em, auth.clientId, wallId, { printerId, autoPrint });
  return withPrinting(em, auth.clientId, wall);
}

/** PATCH /walls/{id} and PUT /walls/{id}: one edit under two methods. */
function editWallRoute(method: 'patch' | 'put', operationId: string, summary: string) {
  return defineRoute({
    method,
    path: '/walls/{id}',
    operationId,
    summary,
    description:
      'Changes the fields given; absent fields stay. A change writes one wall.updated event; a PATCH that changes nothing writes none. ' +
      'Deactivating a wall or lowering maxSorters ends no session; it refuses new connections and scans (wall-inactive) or connections beyond the limit.',
    tags: ['Walls'],
    access: ['Manager'],
    params: wallParams,
    body: updateWallBody,
    response: wallRecord,
    errors: ['not-found', 'printer-not-found', 'wall-name-taken', 'slot-not-empty', ...COMMAND_ERRORS],
    handler: ({ em, deps, auth, params, body }) => updateWallRecord(em, deps.commands, auth, params.id, body),
  });
}
