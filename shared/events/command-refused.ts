import { createHash } from 'node:crypto';
import type { ErrorCode } from '../errors/error-codes';
import type { CommandName } from '../commands/commands';
import type { EventDataIn } from './event-schemas';

/** The internal event type of a refused workflow command (docs/architecture.md "Refused commands"). */
export const COMMAND_REFUSED = 'command.refused' as const;

/**
 * `data` of a `command.refused` event; null where the command did not get far enough to know. Its
 * readers (the audit record, the statistics) take it from stored JSON: they check each field, as an
 * older event may carry a code or command no longer in the unions.
 */
export interface CommandRefusedData {
  /** The command's name, e.g. `item.scan`. */
  command: CommandName;
  /** The refusal's error code: a machine's refusal (RefusalCode, machines/decide.ts) or another of the use-case's (docs/api.md §1). */
  code: ErrorCode;
  detail: string;
  sessionId: number | null;
  userId: number | null;
  barcode: string | null;
  barcodeInputMethod: string | null;
  sortBoxItemId: number | null;
  crc: string | null;
  orderId: number | null;
  picklistId: number | null;
}

// Compile-time check: what the actor writes matches the type's schema (shared/events/event-schemas.ts).
type Assert<T extends true> = T;
export type RefusalMatchesSchema = Assert<CommandRefusedData extends EventDataIn<typeof COMMAND_REFUSED> ? true : false>;

// Fixed namespace of the name-based (version 5) UUIDs below; never change it.
const NAMESPACE = Buffer.from('3b0f3a4e9c6d4f0a8e2b5d7c1a9f6e42', 'hex');

/**
 * The event id of a command's refusal: a version 5 UUID of the command job's commandId (its id for
 * exactly-once, carried by the job). A command delivered twice is refused twice but recorded once.
 */
export function commandRefusedEventId(commandId: string): string {
  const h = createHash('sha1').update(NAMESPACE).update(`${COMMAND_REFUSED}:${commandId}`).digest();
  h[6] = (h[6] & 0x0f) | 0x50;
  h[8] = (h[8] & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`;
}
