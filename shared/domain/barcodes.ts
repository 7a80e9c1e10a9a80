// Slot barcodes (docs/api.md §5): the bare crc, the sorter's `A-` code on the front and the
// shipper's `B-` code on the back. Which kinds a command accepts is the caller's rule; this only
// recognises them.

export type SlotBarcodeKind = 'crc' | 'sorter' | 'shipper';

export interface ParsedSlotBarcode {
  kind: SlotBarcodeKind;
  /** 8 upper-case hex digits. */
  crc: string;
}

const SLOT_BARCODE = /^(?:([AB])-)?([0-9A-F]{8})$/i;

/** Recognises `XXXXXXXX`, `A-XXXXXXXX` or `B-XXXXXXXX` (any case, surrounding spaces ignored); null otherwise. */
export function parseSlotBarcode(input: string): ParsedSlotBarcode | null {
  const match = SLOT_BARCODE.exec(input.trim());
  if (!match) return null;
  const prefix = match[1]?.toUpperCase();
  const kind: SlotBarcodeKind = prefix === 'A' ? 'sorter' : prefix === 'B' ? 'shipper' : 'crc';
  return { kind, crc: match[2]!.toUpperCase() };
}

export function sorterBarcode(crc: string): string {
  return `A-${crc}`;
}

export function shipperBarcode(crc: string): string {
  return `B-${crc}`;
}
