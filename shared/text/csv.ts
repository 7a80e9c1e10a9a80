/*
 * Comma-separated values as RFC 4180 has them, the way OMS and spreadsheet exports write them: fields
 * separated by commas, records by CRLF or LF (a lone CR as well); a field in double quotes may hold
 * commas, line breaks and quotes written twice (""). A UTF-8 byte order mark at the start is skipped.
 * Lines with nothing on them are skipped (spreadsheets leave them at the end), but still counted, so a
 * record's `row` is the row a spreadsheet shows for it (the header is row 1).
 *
 * Strict where a guess would misread data: a quote inside an unquoted field, text after a closing quote,
 * or a quote never closed is a CsvSyntaxError naming the row and field.
 */

export interface CsvRecord {
  /** The record's row as a spreadsheet numbers it: the first record (the header) is 1. */
  row: number;
  fields: string[];
}

export class CsvSyntaxError extends Error {
  constructor(
    /** The row of the record the mistake is in (a field spanning lines: the row it starts on). */
    readonly row: number,
    /** The field's position in its record, from 1. */
    readonly field: number,
    message: string,
  ) {
    super(message);
    this.name = 'CsvSyntaxError';
  }
}

const QUOTE = 0x22;
const COMMA = 0x2c;
const LF = 0x0a;
const CR = 0x0d;
const BOM = 0xfeff;

/** Whether `text` starts with a UTF-8 byte order mark (decoded: U+FEFF). */
export function hasBom(text: string): boolean {
  return text.charCodeAt(0) === BOM;
}

/** The delimiters other than the comma that exports use (a spreadsheet's locale decides). */
const OTHER_DELIMITERS: readonly [string, string][] = [
  [';', 'semicolons (;)'],
  ['\t', 'tabs'],
  ['|', 'vertical bars (|)'],
];

/**
 * The first line's delimiter when it is not the comma: a header that holds no comma but another
 * delimiter names it ("semicolons (;)"), else null.
 * Only quotes-free text counts: a quoted header name may hold anything.
 */
export function otherDelimiter(text: string): string | null {
  const start = hasBom(text) ? 1 : 0;
  let end = text.indexOf('\n', start);
  if (end < 0) end = text.length;
  const line = text.slice(start, end).replace(/"(?:[^"]|"")*"/g, '');
  if (line.includes(',')) return null;
  for (const [d, name] of OTHER_DELIMITERS) {
    if (line.includes(d)) return name;
  }
  return null;
}

/** Every record of a comma-separated text, in order; throws CsvSyntaxError at the first malformed one. */
export function parseCsv(text: string): CsvRecord[] {
  const n = text.length;
  const records: CsvRecord[] = [];
  let i = hasBom(text) ? 1 : 0;
  let row = 0;
  while (i < n) {
    row += 1;
    const recordRow = row;
    const fields: string[] = [];
    for (;;) {
      let value: string;
      if (text.charCodeAt(i) === QUOTE) {
        let from = i + 1;
        value = '';
        for (;;) {
          const q = text.indexOf('"', from);
          if (q < 0) {
            throw new CsvSyntaxError(recordRow, fields.length + 1, 'has a quoted value whose closing quote (") never comes');
          }
          // Line breaks inside quotes belong to the value; they still advance the spreadsheet's rows.
          row += countLineBreaks(text, from, q);
          if (text.charCodeAt(q + 1) === QUOTE) {
            value += text.slice(from, q + 1);
            from = q + 2;
            continue;
          }
          value += text.slice(from, q);
          i = q + 1;
          break;
        }
        const c = text.charCodeAt(i);
        if (i < n && c !== COMMA && c !== LF && c !== CR) {
          throw new CsvSyntaxError(
            recordRow,
            fields.length + 1,
            `has text after a quoted value's closing quote ('${text.slice(i, i + 10)}…'); a quote inside a quoted value is written twice ("")`,
          );
        }
      } else {
        let j = i;
        for (; j < n; j++) {
          const c = text.charCodeAt(j);
          if (c === COMMA || c === LF || c === CR) break;
          if (c === QUOTE) {
            throw new CsvSyntaxError(
              recordRow,
              fields.length + 1,
              'has a quote (") inside a value that does not start with one; a value holding quotes is written in quotes with each of its quotes twice ("5"" screen")',
            );
          }
        }
        value = text.slice(i, j);
        i = j;
      }
      fields.push(value);
      if (i >= n) break;
      const c = text.charCodeAt(i);
      if (c === COMMA) {
        i += 1;
        if (i >= n) {
          fields.push('');
          break;
        }
        continue;
      }
      i += c === CR && text.charCodeAt(i + 1) === LF ? 2 : 1;
      break;
    }
    if (fields.length > 1 || fields[0] !== '') records.push({ row: recordRow, fields });
  }
  return records;
}

/** The line breaks (CRLF, LF or a lone CR, each one) in text[from, to). */
function countLineBreaks(text: string, from: number, to: number): number {
  let count = 0;
  for (let k = from; k < to; k++) {
    const c = text.charCodeAt(k);
    if (c === LF) count += 1;
    else if (c === CR && text.charCodeAt(k + 1) !== LF) count += 1;
  }
  return count;
}
