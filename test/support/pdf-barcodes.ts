import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The barcodes on each page of a PDF, as a printer would put them on paper: pdftoppm (poppler-utils)
 * renders every page at 200 dpi, zbarimg (zbar-tools) reads each. One array per page, in zbar's order.
 */
export function decodePdfPages(pdf: Buffer): string[][] {
  const dir = mkdtempSync(join(tmpdir(), 'pdf-barcodes-'));
  try {
    writeFileSync(join(dir, 'doc.pdf'), pdf);
    execFileSync('pdftoppm', ['-r', '200', '-png', join(dir, 'doc.pdf'), join(dir, 'page')], { timeout: 60_000 });
    const pages = readdirSync(dir).filter((f) => /^page-\d+\.png$/.test(f)).sort((a, b) => Number(a.match(/\d+/)![0]) - Number(b.match(/\d+/)![0]));
    return pages.map((f) => {
      // zbarimg exits 4 when a page holds no barcode; that page is an empty array.
      try {
        return execFileSync('zbarimg', ['-q', '--raw', join(dir, f)], { timeout: 30_000, stdio: ['ignore', 'pipe', 'ignore'] }).toString('utf8').split('\n').filter(Boolean);
      } catch (err) {
        if ((err as { status?: number }).status === 4) return [];
        throw err;
      }
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The text of a PDF, laid out as on the page (pdftotext). */
export function pdfText(pdf: Buffer): string {
  const dir = mkdtempSync(join(tmpdir(), 'pdf-text-'));
  try {
    writeFileSync(join(dir, 'doc.pdf'), pdf);
    return execFileSync('pdftotext', ['-layout', join(dir, 'doc.pdf'), '-'], { timeout: 20_000 }).toString('utf8');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
