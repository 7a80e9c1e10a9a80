import { CsvSyntaxError, otherDelimiter, parseCsv } from '../../shared/text/csv';

const fields = (text: string) => parseCsv(text).map((r) => r.fields);
const rows = (text: string) => parseCsv(text).map((r) => r.row);

describe('parseCsv (RFC 4180)', () => {
  it('reads plain records, with CRLF, LF or CR line ends, and a last line with or without its end', () => {
    expect(fields('a,b\r\n1,2\r\n')).toEqual([['a', 'b'], ['1', '2']]);
    expect(fields('a,b\n1,2')).toEqual([['a', 'b'], ['1', '2']]);
    expect(fields('a,b\r1,2\r')).toEqual([['a', 'b'], ['1', '2']]);
  });

  it('keeps empty fields, a trailing one included', () => {
    expect(fields('a,,c\n,,\n1,2,')).toEqual([['a', '', 'c'], ['', '', ''], ['1', '2', '']]);
  });

  it('reads quoted fields with commas, doubled quotes and line breaks', () => {
    expect(fields('name,note\n"Smith, Ann","say ""hi""\r\nnext line"\n""," "\n')).toEqual([
      ['name', 'note'],
      ['Smith, Ann', 'say "hi"\r\nnext line'],
      ['', ' '],
    ]);
  });

  it('skips a byte order mark', () => {
    expect(fields('\uFEFFsku,title\nA,B')).toEqual([['sku', 'title'], ['A', 'B']]);
    expect(fields('\uFEFF"sku",title\n')).toEqual([['sku', 'title']]);
  });

  it('numbers records as a spreadsheet shows them: blank lines skipped but counted, a field over two lines one row', () => {
    const text = 'h1,h2\n\n"a\nb",c\nd,e\n\n';
    expect(fields(text)).toEqual([['h1', 'h2'], ['a\nb', 'c'], ['d', 'e']]);
    expect(rows(text)).toEqual([1, 3, 5]);
  });

  it('refuses a quote never closed, text after a closing quote and a quote inside an unquoted field, naming row and field', () => {
    const fail = (text: string) => {
      try {
        parseCsv(text);
      } catch (e) {
        expect(e).toBeInstanceOf(CsvSyntaxError);
        const { row, field, message } = e as CsvSyntaxError;
        return { row, field, message };
      }
      throw new Error('parsed');
    };
    expect(fail('a,b\n1,"2\n3,4\n')).toMatchObject({ row: 2, field: 2, message: expect.stringContaining('never comes') });
    expect(fail('a,b\n1,"2"x\n')).toMatchObject({ row: 2, field: 2, message: expect.stringContaining('after a quoted value') });
    expect(fail('a,b\n1,5" screen\n')).toMatchObject({ row: 2, field: 2, message: expect.stringContaining('inside a value') });
  });
});

describe('otherDelimiter', () => {
  it('names the delimiter of a header without commas', () => {
    expect(otherDelimiter('orderId;warehouseId;sku\n1;2;3')).toBe('semicolons (;)');
    expect(otherDelimiter('\uFEFForderId\twarehouseId\tsku\n')).toBe('tabs');
    expect(otherDelimiter('orderId,warehouseId;x,sku\n')).toBeNull();
    expect(otherDelimiter('"a;b",c\n')).toBeNull();
    expect(otherDelimiter('"a,b";c\n')).toBe('semicolons (;)');
    expect(otherDelimiter('sku\nA;B;C\n')).toBeNull();
  });
});
