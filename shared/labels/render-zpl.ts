import { addressLines, slotText, type LicensePlateLabel } from './label-data';

/**
 * Field data for ^FH: '^' and '~' would start a ZPL command and '_' is ^FH's escape character, so all
 * three travel as _XX hex; control characters (a newline in an address) become spaces.
 */
function field(text: string): string {
  return text
    .replace(/[\u0000-\u001f\u007f]/g, ' ')
    .replace(/[_^~]/g, (c) => `_${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
}

const DOTS_PER_INCH = 203;

/**
 * A printer's test label (POST /printers/{id}/test): 4 × 2 inch, the printer's name and address, when
 * it was asked for, and a Code 128 of its code, so a person at the printer sees that text, bars and the
 * label's size come out right.
 */
export function renderTestZpl(test: { printerName: string; address: string; at: Date; code: string }): string {
  const text = (x: number, y: number, size: number, value: string) => `^FO${x},${y}^A0N,${size},${size}^FH^FD${field(value)}^FS`;
  return [
    '^XA',
    '^CI28',
    `^PW${4 * DOTS_PER_INCH}`,
    `^LL${2 * DOTS_PER_INCH}`,
    text(30, 20, 44, 'TEST PRINT'),
    text(30, 72, 30, test.printerName),
    text(30, 108, 26, `${test.address} · ${test.at.toISOString().slice(0, 16).replace('T', ' ')} UTC`),
    `^FO30,150^BY2^BCN,160,Y,N,N,A^FH^FD${field(test.code)}^FS`,
    '^XZ',
    '',
  ].join('\n');
}

/** A 4×6 inch ZPL II label (203 dpi), UTF-8 (^CI28), the plate as a native Code 128 (^BC, automatic mode). */
export function renderZpl(label: LicensePlateLabel): string {
  const text = (x: number, y: number, size: number, value: string) => `^FO${x},${y}^A0N,${size},${size}^FH^FD${field(value)}^FS`;
  const lines = [
    '^XA',
    '^CI28',
    `^PW${4 * DOTS_PER_INCH}`,
    `^LL${6 * DOTS_PER_INCH}`,
    text(40, 40, 32, 'SHIP TO'),
    ...addressLines(label.shipTo).map((line, i) => text(40, 85 + i * 44, 40, line)),
    '^FO30,330^GB752,3,3^FS',
    text(40, 360, 32, 'LICENSE PLATE'),
    `^FO60,410^BY3^BCN,220,Y,N,N,A^FH^FD${field(label.plateNumber)}^FS`,
    '^FO30,710^GB752,3,3^FS',
    text(40, 740, 44, `ORDER ${label.orderId}`),
    text(40, 810, 36, `WALL ${label.wallName ?? '-'}`),
    text(40, 865, 36, `SLOT ${slotText(label)}`),
    text(40, 920, 36, `UNITS ${label.units}`),
    '^XZ',
  ];
  return `${lines.join('\n')}\n`;
}
