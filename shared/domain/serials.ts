import { parseSlotBarcode } from './barcodes';

/*
 * A unit's serial number (docs/api.md "Serial numbers"): what a confirm of a product that requires one
 * carries. Trimmed, then 1 to 64 printable ASCII characters (codes 33 to 126: no space, no control
 * character, nothing outside ASCII). Compared exactly, letter case included.
 */

export const SERIAL_MAX_LENGTH = 64;
const PRINTABLE = /^[\x21-\x7E]+$/;

/** The serial as a confirm carries it: trimmed; null when none was sent or only blanks. */
export function serialOf(input: string | null | undefined): string | null {
  const s = input?.trim() ?? '';
  return s === '' ? null : s;
}

const shown = (s: string) => (s.length > 40 ? `${s.slice(0, 40)}…` : s);

/**
 * Why a serial (trimmed, not empty) is malformed, in words for the sorter; null when it is well formed.
 * `scanned` is the product barcode the unit was scanned with: scanning it again is a slip, not a serial.
 */
export function serialProblem(serial: string, scanned?: string): string | null {
  if (serial.length > SERIAL_MAX_LENGTH) return `The serial number '${shown(serial)}' is ${serial.length} characters long.`;
  if (/\s/.test(serial)) return `The serial number '${shown(serial)}' holds a space.`;
  if (!PRINTABLE.test(serial)) return `The serial number '${shown(serial)}' holds a character other than printable ASCII.`;
  const slot = parseSlotBarcode(serial);
  if (slot && slot.kind !== 'crc') return `'${serial}' is a slot barcode, not the unit's serial number.`;
  if (scanned !== undefined && serial.toUpperCase() === scanned.trim().toUpperCase()) {
    return `'${serial}' is the product barcode the unit was scanned with, not its serial number.`;
  }
  return null;
}
