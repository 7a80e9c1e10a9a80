import PDFDocument from 'pdfkit';
import { code128Widths, drawBars } from './code128';
import { addressLines, slotText, type LicensePlateLabel } from './label-data';

const POINTS_PER_INCH = 72;

/** A 4×6 inch PDF label: ship-to, the plate as a Code 128 (bwip-js's encoding, drawn as vectors), order, wall, slot, units. */
export async function renderPdf(label: LicensePlateLabel): Promise<Buffer> {
  const bars = code128Widths(label.plateNumber);
  const width = 4 * POINTS_PER_INCH;
  const doc = new PDFDocument({ size: [width, 6 * POINTS_PER_INCH], margin: 18, compress: true, info: { Title: `License plate ${label.plateNumber}` } });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  const inner = width - 36;
  doc.font('Helvetica-Bold').fontSize(10).text('SHIP TO', 18, 18);
  doc.font('Helvetica').fontSize(13);
  for (const line of addressLines(label.shipTo)) doc.text(line, { width: inner });
  doc.moveTo(18, 150).lineTo(width - 18, 150).stroke();
  doc.font('Helvetica-Bold').fontSize(10).text('LICENSE PLATE', 18, 160);
  // Quiet zones on both sides come from the margins.
  drawBars(doc, bars, 28, 178, inner - 20, 110);
  doc.font('Helvetica-Bold').fontSize(16).text(label.plateNumber, 18, 296, { width: inner, align: 'center' });
  doc.moveTo(18, 322).lineTo(width - 18, 322).stroke();
  doc.font('Helvetica-Bold').fontSize(18).text(`ORDER ${label.orderId}`, 18, 334);
  doc.font('Helvetica').fontSize(13);
  doc.text(`WALL ${label.wallName ?? '-'}`, { width: inner });
  doc.text(`SLOT ${slotText(label)}`, { width: inner });
  doc.text(`UNITS ${label.units}`, { width: inner });
  doc.end();
  return done;
}
