/**
 * Every stable error code (docs/api.md §1, the codes table), with its HTTP status and title.
 * The code is what clients branch on; the detail is what a person reads.
 */
export const ERROR_CODES = {
  'validation-failed': { status: 400, title: 'Validation failed' },
  unauthorized: { status: 401, title: 'Unauthorized' },
  forbidden: { status: 403, title: 'Forbidden' },
  'subscription-disabled': { status: 403, title: 'Sorting subscription disabled' },
  'pin-required': { status: 403, title: 'PIN required' },
  'pin-invalid': { status: 403, title: 'PIN invalid' },
  'not-found': { status: 404, title: 'Not found' },
  'printer-not-found': { status: 404, title: 'Printer not found' },
  'method-not-allowed': { status: 405, title: 'Method not allowed' },
  'wall-name-taken': { status: 409, title: 'Wall name taken' },
  'serial-attached-elsewhere': { status: 409, title: 'Serial number attached to another wall' },
  'crc-collision': { status: 409, title: 'CRC collision' },
  'sorter-limit-reached': { status: 409, title: 'Sorter limit reached' },
  'item-already-confirmed': { status: 409, title: 'Item already confirmed' },
  'item-already-cancelled': { status: 409, title: 'Item already cancelled' },
  'slot-not-swappable': { status: 409, title: 'Slot not swappable' },
  'slot-not-empty': { status: 409, title: 'Slot not empty' },
  'slot-not-complete': { status: 409, title: 'Slot not complete' },
  'session-ended': { status: 409, title: 'Session ended' },
  'transparency-code-exists': { status: 409, title: 'Transparency code exists' },
  'transparency-codes-complete': { status: 409, title: 'Transparency codes complete' },
  'email-taken': { status: 409, title: 'Email taken' },
  'last-admin': { status: 409, title: 'Last active Admin' },
  'idempotency-key-reused': { status: 409, title: 'Idempotency key reused' },
  'invalid-transition': { status: 409, title: 'Invalid state transition' },
  'printer-in-use': { status: 409, title: 'Printer in use' },
  'no-printer': { status: 409, title: 'No printer' },
  'payload-too-large': { status: 413, title: 'Payload too large' },
  'unsupported-media-type': { status: 415, title: 'Unsupported media type' },
  'picklist-not-open': { status: 422, title: 'Picklist not open' },
  'picklist-required': { status: 422, title: 'Picklist required' },
  'wall-inactive': { status: 422, title: 'Wall inactive' },
  'barcode-not-recognized': { status: 422, title: 'Barcode not recognized' },
  'no-fulfillable-order': { status: 422, title: 'No fulfillable order' },
  'no-empty-slot': { status: 422, title: 'No empty slot' },
  'units-exceed-remaining': { status: 422, title: 'Units exceed remaining quantity' },
  'shipper-barcode-not-accepted': { status: 422, title: 'Shipper barcode not accepted' },
  'sorter-barcode-not-accepted': { status: 422, title: 'Sorter barcode not accepted' },
  'wrong-slot': { status: 422, title: 'Wrong slot' },
  'invalid-transparency-code': { status: 422, title: 'Invalid transparency code' },
  'rate-limited': { status: 429, title: 'Too many requests' },
  'internal-error': { status: 500, title: 'Internal server error' },
  'service-unavailable': { status: 503, title: 'Service unavailable' },
  'command-timeout': { status: 504, title: 'Command timed out' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export const ERROR_TYPE_BASE = 'https://errors.sorting-wall.dev/';
