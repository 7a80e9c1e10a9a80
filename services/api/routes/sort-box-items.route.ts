import { z } from 'zod';
import { BARCODE_INPUT_METHODS, SortBox, SortBoxItem, OrderItem } from '../../../shared/db/entities';
import { AppError } from '../../../shared/errors/app-error';
import { isManager } from '../../../shared/auth/roles';
import { parseSlotBarcode } from '../../../shared/domain/barcodes';
import { releaseResultDto, sortBoxItemDto } from '../../../shared/dto/sorting.dto';
import { toItemDto } from '../../../shared/dto/sorting.mappers';
import type { RouteDef } from '../http/route';
import { defineRoute } from '../http/route';
import { idParam, queryBool } from '../http/validation';
import { commandActor } from '../use-cases/sorting/command-actor';
import { assertPin } from '../use-cases/security/assert-pin.use-case';
import { rememberItemWall, wallOfItem, wallOfSession, wallOfSlot } from '../use-cases/sorting/wall-resolver';

const itemParams = z.object({ id: idParam.describe('Sort box item id') });
const COMMAND_ERRORS = ['service-unavailable', 'command-timeout'];
const IDEMPOTENCY_HEADER = {
  name: 'Idempotency-Key',
  description: 'A retried scan with the same key returns the first answer and creates nothing new (keys are kept 24 hours).',
};

function pinHeader(req: { header(name: string): string | undefined }): string | undefined {
  return req.header('x-pin') ?? undefined;
}

export const sortBoxItemsRoutes: RouteDef[] = [
  defineRoute({
    method: 'post',
    path: '/sort-box-items',
    operationId: 'CreateSortBoxItem',
    summary: 'Scan a product: the service chooses the order and the slot and lights it in your color',
    description:
      'The barcode resolves to a product by SKU, then UPC, then shadow SKU, then alias (case-insensitive). The answer names the slot (crc, position) the unit goes into. Keying in a product (barcodeInputMethod KeyedIn) needs the PIN in X-Pin where the PIN is enforced server-side.',
    tags: ['Sorting'],
    access: ['Sorter'],
    requiresSubscription: true,
    headers: [IDEMPOTENCY_HEADER, { name: 'X-Pin', description: 'The PIN, for KeyedIn input where enforcement is server-side.' }],
    body: z.object({
      sessionToken: z.string().min(1).max(200).describe('Your session on the wall (POST /walls/{id}/sessions): it names the wall and the picklist'),
      barcode: z.string().trim().min(1).max(128).describe("The product's SKU, UPC, shadow SKU or alias, as scanned (trimmed, any letter case)"),
      barcodeInputMethod: z.enum(BARCODE_INPUT_METHODS).default('Scanned').describe('How the barcode was entered; KeyedIn may need the PIN'),
    }),
    response: sortBoxItemDto,
    errors: [
      'not-found', 'forbidden', 'session-ended', 'wall-inactive', 'barcode-not-recognized', 'no-fulfillable-order', 'no-empty-slot',
      'idempotency-key-reused', 'pin-required', 'pin-invalid', 'rate-limited', ...COMMAND_ERRORS,
    ],
    handler: async ({ req, body, auth, em, deps }) => {
      const key = req.header('idempotency-key');
      if (key !== undefined && (key.length < 1 || key.length > 200)) {
        throw new AppError('validation-failed', 'The Idempotency-Key header must be 1 to 200 characters.', {
          errors: [{ path: 'Idempotency-Key', message: 'must be 1 to 200 characters' }],
        });
      }
      if (body.barcodeInputMethod === 'KeyedIn') await assertPin(em, deps, auth, pinHeader(req));
      const wallId = await wallOfSession(em, auth.clientId, body.sessionToken);
      const item = await deps.commands.execute('item.scan', {
        ...commandActor(auth, wallId),
        sessionToken: body.sessionToken,
        barcode: body.barcode,
        barcodeInputMethod: body.barcodeInputMethod,
        idempotencyKey: key ?? null,
      });
      rememberItemWall(auth.clientId, item.id, wallId);
      return item;
    },
  }),
  defineRoute({
    method: 'get',
    path: '/sort-box-items/{id}',
    operationId: 'GetSortBoxItem',
    summary: 'Read a sort box item (a scan) with its slot and the order line figures',
    description: 'Any item of your company. An item whose slot has since been detached keeps its crc and shows position 0.',
    tags: ['Sorting'],
    access: ['Sorter'],
    params: itemParams,
    response: sortBoxItemDto,
    errors: ['not-found'],
    handler: async ({ params, auth, em }) => {
      const item = await em.findOne(SortBoxItem, { id: params.id, clientId: auth.clientId });
      if (!item) throw new AppError('not-found', `Sort box item ${params.id} was not found.`);
      const [slot, line] = await Promise.all([
        item.sortBoxId === null ? null : em.findOne(SortBox, { id: item.sortBoxId }),
        em.findOneOrFail(OrderItem, { id: item.orderItemId }),
      ]);
      // A detached slot leaves its crc on the item; position 0 says the slot is gone.
      return toItemDto(item, slot ?? { crc: item.crc, position: 0 }, line);
    },
  }),
  defineRoute({
    method: 'patch',
    path: '/sort-box-items/{id}/confirm',
    operationId: 'ConfirmSortBoxItem',
    summary: 'Confirm a scan: the unit(s) are in the slot',
    description:
      "Optional body { barcode }: the slot's sorter barcode (A-XXXXXXXX) or crc; another slot's → 422 wrong-slot (the item stays pending), a shipper barcode (B-) → 422 shipper-barcode-not-accepted.",
    tags: ['Sorting'],
    access: ['Sorter'],
    requiresSubscription: true,
    params: itemParams,
    query: z.object({ units: z.coerce.number().int().min(1).max(100000).default(1).describe('Units confirmed (default 1)') }),
    body: z.object({
      barcode: z.string().trim().min(1).max(64).optional().describe("The slot's sorter barcode A-XXXXXXXX (or crc) as scanned, to check the unit went into the right slot"),
    }),
    bodyOptional: true,
    response: sortBoxItemDto,
    errors: ['not-found', 'forbidden', 'item-already-confirmed', 'item-already-cancelled', 'units-exceed-remaining', 'wrong-slot', 'shipper-barcode-not-accepted', 'session-ended', ...COMMAND_ERRORS],
    handler: async ({ params, query, body, auth, em, deps }) => {
      const wallId = await wallOfItem(em, auth.clientId, params.id);
      return deps.commands.execute('item.confirm', {
        ...commandActor(auth, wallId),
        itemId: params.id,
        units: query.units,
        barcode: body?.barcode ?? null,
      });
    },
  }),
  defineRoute({
    method: 'patch',
    path: '/sort-box-items/{id}/cancel',
    operationId: 'CancelSortBoxItem',
    summary: 'Cancel a pending scan; its unit goes back to the order',
    description: "Where the client's PIN enforcement is server-side, the X-Pin header must hold the PIN (403 pin-required / pin-invalid).",
    tags: ['Sorting'],
    access: ['Sorter'],
    requiresSubscription: true,
    params: itemParams,
    headers: [{ name: 'X-Pin', description: 'The PIN, where enforcement is server-side.' }],
    response: sortBoxItemDto,
    errors: ['not-found', 'forbidden', 'item-already-cancelled', 'item-already-confirmed', 'pin-required', 'pin-invalid', 'rate-limited', 'session-ended', ...COMMAND_ERRORS],
    handler: async ({ req, params, auth, em, deps }) => {
      const wallId = await wallOfItem(em, auth.clientId, params.id);
      await assertPin(em, deps, auth, pinHeader(req));
      return deps.commands.execute('item.cancel', { ...commandActor(auth, wallId), itemId: params.id });
    },
  }),
  defineRoute({
    method: 'patch',
    path: '/sort-box-items/{id}/swap',
    operationId: 'SwapSortBoxItemSlot',
    summary: "Move a pending scan's order to another, empty slot of the same wall",
    description: 'Allowed only while this item is the first product sorted into its slot for that order (else 409 slot-not-swappable). Target: A-XXXXXXXX or the crc; a B- code → 422.',
    tags: ['Sorting'],
    access: ['Sorter'],
    requiresSubscription: true,
    params: itemParams,
    body: z.object({
      sessionToken: z.string().min(1).max(200).describe('Your own session on the wall'),
      barcode: z.string().trim().min(1).max(64).describe('The target slot: its sorter barcode A-XXXXXXXX or its crc; it must be Empty and on the same wall'),
    }),
    response: sortBoxItemDto,
    errors: ['not-found', 'forbidden', 'slot-not-swappable', 'slot-not-empty', 'item-already-confirmed', 'item-already-cancelled', 'shipper-barcode-not-accepted', 'session-ended', ...COMMAND_ERRORS],
    handler: async ({ params, body, auth, em, deps }) => {
      const wallId = await wallOfItem(em, auth.clientId, params.id);
      return deps.commands.execute('item.swap', {
        ...commandActor(auth, wallId),
        itemId: params.id,
        sessionToken: body.sessionToken,
        barcode: body.barcode,
      });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/sort-boxes/{barcode}/release',
    operationId: 'ReleaseSortBox',
    summary: "The shipper's scan: empty a Complete slot so it can take the next order",
    action: 'release a slot',
    description:
      "barcode: the shipper barcode B-XXXXXXXX on the back of the slot, or the slot's crc. The sorter barcode A-XXXXXXXX on the front is refused " +
      '(422 sorter-barcode-not-accepted): a release is the shipper\'s scan. force=true (Manager, Admin) empties any slot and cancels its pending items.',
    tags: ['Sorting'],
    access: ['Sorter'],
    requiresSubscription: true,
    params: z.object({ barcode: z.string().min(8).max(64).describe('B-XXXXXXXX (the shipper barcode) or the crc XXXXXXXX; any case') }),
    query: z.object({ force: queryBool.default(false).describe('Manager or Admin: empty the slot in any state, cancelling its pending items. Default false.') }),
    response: releaseResultDto,
    errors: ['not-found', 'forbidden', 'slot-not-complete', 'sorter-barcode-not-accepted', ...COMMAND_ERRORS],
    handler: async ({ params, query, auth, em, deps }) => {
      const parsed = parseSlotBarcode(params.barcode);
      if (!parsed) {
        throw new AppError('validation-failed', `'${params.barcode}' is not a slot barcode: scan B-XXXXXXXX on the back of the slot.`, {
          errors: [{ path: 'barcode', message: 'not a slot barcode' }],
        });
      }
      if (parsed.kind === 'sorter') {
        throw new AppError(
          'sorter-barcode-not-accepted',
          `'${params.barcode.trim()}' is the sorter barcode on the front of the slot; to release the slot, scan the back-side (B-) barcode B-${parsed.crc}.`,
        );
      }
      if (query.force && !isManager(auth.roles)) {
        throw new AppError('forbidden', 'Only a Manager or Admin may force the release of a slot.');
      }
      const wallId = await wallOfSlot(em, auth.clientId, parsed.crc);
      return deps.commands.execute('slot.release', {
        ...commandActor(auth, wallId),
        crc: parsed.crc,
        force: query.force,
      });
    },
  }),
];
