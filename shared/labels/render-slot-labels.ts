import PDFDocument from 'pdfkit';
import { code128Widths, drawBars } from './code128';

/** The slots whose labels a sheet prints (docs/api.md §5). Plain data: it crosses a thread boundary. */
export interface SlotLabelSheet {
  wallName: string;
  slots: { position: number; crc: string }[];
}

const PT = 72;
// US Letter, 2 × 4 labels of 3.75 × 2.5 inch each: a slot's face is about 4 inches wide, and the
// sheet goes through any office printer. Each label is cut in two along its dashed line: the upper
// half (A-, the sorter's) goes on the slot's front, the lower half (B-, the shipper's) on its back.
const PAGE = { width: 8.5 * PT, height: 11 * PT };
const LABEL = { width: 3.75 * PT, height: 2.5 * PT };
const COLUMNS = 2;
const ROWS = 4;
const MARGIN_X = (PAGE.width - COLUMNS * LABEL.width) / 2;
const MARGIN_Y = (PAGE.height - ROWS * LABEL.height) / 2;
// A Code 128 needs a quiet zone of at least 10 modules before the label's outline: 24 pt is about 15 at the bars' module width.
const QUIET = 24;

/** One half of a slot's label: which side, the slot's number and crc large, the barcode, its text. */
function drawHalf(doc: PDFKit.PDFDocument, side: 'FRONT' | 'BACK', barcode: string, slot: SlotLabelSheet['slots'][number], wallName: string, x: number, y: number): void {
  const inner = LABEL.width - 2 * QUIET;
  const h = LABEL.height / 2;
  doc.font('Helvetica-Bold').fontSize(20).fillColor('black').text(`SLOT ${slot.position}`, x + QUIET, y + 8, { width: inner * 0.5, lineBreak: false });
  doc.font('Helvetica').fontSize(8).text(`${side} · ${side === 'FRONT' ? 'sorter' : 'shipper'}\n${wallName}`, x + QUIET + inner * 0.5, y + 9, {
    width: inner * 0.5,
    align: 'right',
    height: 22,
    ellipsis: true,
  });
  drawBars(doc, code128Widths(barcode), x + QUIET, y + 34, inner, h - 58);
  doc.font('Courier-Bold').fontSize(12).text(barcode, x + QUIET, y + h - 20, { width: inner, align: 'center', lineBreak: false });
}

/**
 * The slots' barcode labels as a PDF: one label per slot, by position, eight to a Letter page. Each
 * label's front half carries the slot's `A-` barcode, its back half the `B-`, each with the slot's
 * number and crc in plain text; Code 128 as vector bars, sharp at any printer resolution.
 */
export async function renderSlotLabels(sheet: SlotLabelSheet): Promise<Buffer> {
  const doc = new PDFDocument({ size: [PAGE.width, PAGE.height], margin: 0, compress: true, autoFirstPage: false, info: { Title: `Slot labels of wall ${sheet.wallName}` } });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  if (sheet.slots.length === 0) {
    doc.addPage();
    doc.font('Helvetica').fontSize(14).text(`Wall ${sheet.wallName} has no slots yet: attach them first.`, 72, 72, { width: PAGE.width - 144 });
  }
  sheet.slots.forEach((slot, i) => {
    const cell = i % (COLUMNS * ROWS);
    if (cell === 0) doc.addPage();
    const x = MARGIN_X + (cell % COLUMNS) * LABEL.width;
    const y = MARGIN_Y + Math.floor(cell / COLUMNS) * LABEL.height;
    // Cut marks: the label's outline, and the dashed line between its front and back halves.
    doc.lineWidth(0.5).strokeColor('#999').rect(x, y, LABEL.width, LABEL.height).stroke();
    doc.dash(4, { space: 3 }).moveTo(x + 6, y + LABEL.height / 2).lineTo(x + LABEL.width - 6, y + LABEL.height / 2).stroke().undash();
    drawHalf(doc, 'FRONT', `A-${slot.crc}`, slot, sheet.wallName, x, y);
    drawHalf(doc, 'BACK', `B-${slot.crc}`, slot, sheet.wallName, x, y + LABEL.height / 2);
  });
  doc.end();
  return done;
}
