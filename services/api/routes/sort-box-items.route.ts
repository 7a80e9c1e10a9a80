import { z } from 'zod';
import { BARCODE_INPUT_METHODS } from '../../../shared/db/entities';
import { MAX_CONFIRM_UNITS } from '../../../shared/commands/commands';
import { sortBoxItemDto } from '../../../shared/dto/sorting.dto';
import { AppError } from '../../../shared/errors/app-error';
import { COMMAND_ERRORS, idempotencyKeyHeader, pinHeader } from '../http/request-headers';
import { defineRoute, type RouteDef } from '../http/route';
import { idParam } from '../http/validation';
import {
  cancelSortBoxItem,
  confirmSortBoxItem,
  getSortBoxItem,
  scanProduct,
  swapSortBoxItemSlot,
} from '../use-cases/sorting/sort-box-items.use-case';

/** Units of a confirm: a whole number from 1 to MAX_CONFIRM_UNITS (no 0, no negative, no fraction). */
const confirmUnits = (n: z.ZodNumber | z.ZodCoercedNumber) => n.int().min(1).max(MAX_CONFIRM_UNITS);

const itemParams = z.object({ id: idParam.describe('Sort box item id') });
const IDEMPOTENCY_HEADER = {
  name: 'Idempotency-Key',
  description: 'A retried scan with the same key returns the first answer and creates nothing new (keys are kept 24 hours).',
};

export const sortBoxItemsRoutes: RouteDef[] = [
  defineRoute({
    method: 'post',
    path: '/sort-box-items',
    command: 'item.scan',
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
      units: z
        .literal(1, { error: 'must be 1: a scan is one unit (confirm several with PATCH /sort-box-items/{id}/confirm?units=N)' })
        .optional()
        .describe('Always 1 when sent: a scan is one unit; anything else is refused (400). Several units are confirmed with ?units=N of the confirm'),
    }),
    response: sortBoxItemDto,
    errors: [
      'not-found', 'forbidden', 'session-ended', 'wall-inactive', 'barcode-not-recognized', 'no-fulfillable-order', 'no-empty-slot',
      'idempotency-key-reused', 'pin-required', 'pin-invalid', 'rate-limited', ...COMMAND_ERRORS,
    ],
    // The context itself, not a copy of it: reading its `em` would fork one (a PIN check only).
    handler: (ctx) =>
      scanProduct(ctx, ctx.deps, ctx.auth, ctx.body, { idempotencyKey: idempotencyKeyHeader(ctx.req), pin: pinHeader(ctx.req) }),
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
    handler: ({ em, auth, params }) => getSortBoxItem(em, auth.clientId, params.id),
  }),
  defineRoute({
    method: 'patch',
    path: '/sort-box-items/{id}/confirm',
    command: 'item.confirm',
    operationId: 'ConfirmSortBoxItem',
    summary: 'Confirm a scan: the unit(s) are in the slot',
    description:
      "Optional body { barcode, serial }: the slot's sorter barcode (A-XXXXXXXX) or crc; another slot's → 422 wrong-slot (the item stays pending), a shipper barcode (B-) → 422 shipper-barcode-not-accepted. " +
      "An item with requiresSerial needs the unit's serial number, one unit per confirm: missing → 422 serial-required, malformed (trimmed, 1..64 printable ASCII characters without spaces) → 422 serial-invalid, " +
      'units other than 1 → 422 serial-single-unit, already sorted for the SKU in your company → 409 serial-already-sorted (naming the order and slot holding it: orderId, wallId, crc, position, sortBoxItemId). ' +
      'A serial for a product that takes none → 422 serial-not-required.',
    tags: ['Sorting'],
    access: ['Sorter'],
    requiresSubscription: true,
    params: itemParams,
    query: z.object({ units: confirmUnits(z.coerce.number()).optional().describe(`Units confirmed: an integer 1..${MAX_CONFIRM_UNITS}, at most the remaining quantity (default 1)`) }),
    body: z.object({
      barcode: z.string().trim().min(1).max(64).optional().describe("The slot's sorter barcode A-XXXXXXXX (or crc) as scanned, to check the unit went into the right slot"),
      units: confirmUnits(z.number()).optional().describe('The units confirmed, as ?units= (either; both must agree)'),
      serial: z
        .string()
        .nullish()
        .describe("The unit's serial number, as scanned (trimmed): required when the item's requiresSerial is true (one unit per confirm), refused otherwise"),
    }),
    bodyOptional: true,
    response: sortBoxItemDto,
    errors: ['not-found', 'forbidden', 'item-already-confirmed', 'item-already-cancelled', 'units-exceed-remaining', 'wrong-slot', 'shipper-barcode-not-accepted',
      'serial-required', 'serial-invalid', 'serial-not-required', 'serial-single-unit', 'serial-already-sorted', 'session-ended', ...COMMAND_ERRORS],
    handler: ({ sql, deps, auth, params, query, body }) => {
      if (query.units !== undefined && body?.units !== undefined && query.units !== body.units) {
        throw new AppError('validation-failed', `The query says units=${query.units} and the body units=${body.units}: send the units once.`, {
          errors: [{ path: 'units', message: 'differs between the query and the body' }],
        });
      }
      return confirmSortBoxItem(sql, deps.commands, auth, params.id, body?.units ?? query.units ?? 1, body?.barcode ?? null, body?.serial ?? null);
    },
  }),
  defineRoute({
    method: 'patch',
    path: '/sort-box-items/{id}/cancel',
    command: 'item.cancel',
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
    handler: ({ req, em, deps, auth, params }) => cancelSortBoxItem(em, deps, auth, params.id, pinHeader(req)),
  }),
  defineRoute({
    method: 'patch',
    path: '/sort-box-items/{id}/swap',
    command: 'item.swap',
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
    handler: ({ em, deps, auth, params, body }) => swapSortBoxItemSlot(em, deps.commands, auth, params.id, body),
  }),
];
