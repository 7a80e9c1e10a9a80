import { z } from 'zod';
import { releaseResultDto, sortBoxDto } from '../../../shared/dto/sorting.dto';
import { COMMAND_ERRORS } from '../http/request-headers';
import { defineRoute, type RouteDef } from '../http/route';
import { idParam, queryBool, slotCrcParam } from '../http/validation';
import { releaseSortBox } from '../use-cases/sorting/release-sort-box.use-case';
import { attachSortBoxes, detachSortBox } from '../use-cases/walls/edit-wall.use-case';
import { slotLabelsPdf } from '../use-cases/walls/slot-labels.use-case';

const MAX_SERIALS = 1000;
const ATTACH_BODY_LIMIT = 256 * 1024;

const serialNumber = z
  .string()
  .trim()
  .min(1)
  .max(128)
  .describe('Hardware serial number: real ones are hexadecimal text beginning with 0x; dummy strings are accepted too. Trimmed; case-sensitive.');
const serialNumberList = z.array(serialNumber).min(1).max(MAX_SERIALS);

// Documented shape (both forms); the elements are checked after normalizing to the object form, so a
// bad element is reported as serialNumbers[i] whichever form was sent.
const looseItem = z.unknown().meta({ type: 'string', minLength: 1, maxLength: 128, examples: ['0x1A2B3C4D'] });
const looseList = z.array(looseItem).meta({ minItems: 1, maxItems: MAX_SERIALS });
const attachBody = z
  .union([z.object({ serialNumbers: looseList }), looseList], {
    error: 'expected { "serialNumbers": ["0x1A2B3C4D", ...] } or a bare array of serial numbers',
  })
  .transform((v) => (Array.isArray(v) ? { serialNumbers: v } : v))
  .pipe(z.object({ serialNumbers: serialNumberList }))
  .describe(`1..${MAX_SERIALS} serial numbers, as { "serialNumbers": [...] } or a bare array.`);

const slotParam = slotCrcParam.describe('The slot crc (XXXXXXXX, any case), or its sorter (A-) or shipper (B-) barcode.');

export const sortBoxesRoutes: RouteDef[] = [
  defineRoute({
    method: 'put',
    path: '/walls/{id}/sort-boxes',
    operationId: 'AttachSortBoxes',
    summary: 'Attach slots (sort boxes) to a wall, idempotently and all-or-nothing',
    description:
      'Answers the SortBox of each serial number in request order (a serial repeated in the request is attached once and answered at each place). ' +
      'Serial numbers already on this wall are answered as they are; new ones get crc = CRC-32 of the serial number and the positions after the last one of the wall, in request order. ' +
      'A serial number on another wall of your company (409 serial-attached-elsewhere) or two serial numbers with one crc (409 crc-collision) attach nothing; errors[] names each.',
    tags: ['Walls'],
    access: ['Manager'],
    params: z.object({ id: idParam.describe('Wall id') }),
    body: attachBody,
    // 1,000 serial numbers of up to 128 characters.
    bodyLimit: ATTACH_BODY_LIMIT,
    response: z.array(sortBoxDto),
    errors: ['not-found', 'serial-attached-elsewhere', 'crc-collision', ...COMMAND_ERRORS],
    handler: ({ em, deps, auth, params, body }) => attachSortBoxes(em, deps.commands, auth, params.id, body.serialNumbers),
  }),
  defineRoute({
    method: 'delete',
    path: '/walls/{id}/sort-boxes/{crc}',
    operationId: 'DetachSortBox',
    summary: 'Detach an Empty slot from a wall',
    description:
      'Answers the removed SortBox. Only an Empty slot without scans awaiting confirmation can be detached (409 slot-not-empty otherwise). ' +
      "The other slots keep their positions; the serial number can then be attached to any wall. The slot's finished scans stay, keeping its crc.",
    tags: ['Walls'],
    access: ['Manager'],
    params: z.object({ id: idParam.describe('Wall id'), crc: slotParam }),
    response: sortBoxDto,
    errors: ['not-found', 'slot-not-empty', ...COMMAND_ERRORS],
    handler: ({ em, deps, auth, params }) => detachSortBox(em, deps.commands, auth, params.id, params.crc),
  }),
  defineRoute({
    method: 'get',
    path: '/walls/{id}/slot-labels.pdf',
    operationId: 'GetSlotLabelsPdf',
    summary: "The wall's slot labels to print and stick on the slots (application/pdf)",
    description:
      "One label per slot, by position, eight to a US Letter page (3.75 × 2.5 inch each): the upper half carries the slot's sorter barcode A-XXXXXXXX for its front, " +
      'the lower half its shipper barcode B-XXXXXXXX for its back (cut along the dashed line), each as Code 128 with the slot number, the crc and the wall name in plain text. ' +
      'A wall without slots answers a page saying so.',
    tags: ['Walls'],
    access: ['Manager'],
    params: z.object({ id: idParam.describe('Wall id') }),
    responseContentType: 'application/pdf',
    errors: ['not-found', 'service-unavailable'],
    handler: async ({ res, em, deps, auth, params }) => {
      const { pdf } = await slotLabelsPdf(em, deps.labels, auth.clientId, params.id, deps.config.DATABASE_PREPARED_STATEMENTS);
      res
        .status(200)
        .set('Content-Type', 'application/pdf')
        .set('Content-Disposition', `inline; filename="wall-${params.id}-slot-labels.pdf"`)
        .end(pdf);
    },
  }),
  defineRoute({
    method: 'post',
    path: '/sort-boxes/{barcode}/release',
    command: 'slot.release',
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
    handler: ({ sql, deps, auth, params, query }) => releaseSortBox(sql, deps.commands, auth, params.barcode, query.force),
  }),
];
