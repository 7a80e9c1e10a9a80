import { createLogger } from '../../shared/logging/logger';
import { AppError } from '../../shared/errors/app-error';
import type { LicensePlateLabel } from '../../shared/labels/label-data';
import { renderZpl } from '../../shared/labels/render-zpl';
import { createLabelRenderPool } from '../../shared/labels/render-pool';

const label = (n: number): LicensePlateLabel => ({
  plateNumber: `LP${String(n).padStart(10, '0')}`,
  orderId: n,
  shipTo: { name: 'Jane Doe', street1: '1 Main St', city: 'Springfield', state: 'IL', postalCode: '62701', country: 'US' },
  wallName: 'Wall 1',
  crc: 'ABCDEF12',
  slotNumber: 3,
  units: 2,
});

describe('label render pool (worker threads)', () => {
  const log = createLogger('silent', 'test');

  it('renders PDFs and ZPL on its threads, each answer belonging to its request', async () => {
    const pool = createLabelRenderPool({ threads: 2, maxQueued: 100, log });
    try {
      const zpls = await Promise.all(Array.from({ length: 20 }, (_, i) => pool.render('zpl', label(i))));
      zpls.forEach((z, i) => expect(z.toString('utf8')).toBe(renderZpl(label(i))));
      const pdfs = await Promise.all(Array.from({ length: 6 }, (_, i) => pool.render('pdf', label(i))));
      for (const pdf of pdfs) expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
      expect(new Set(pdfs.map((p) => p.toString('latin1').match(/License plate (LP\d+)/)?.[1])).size).toBe(6);
    } finally {
      await pool.close();
    }
  });

  it('rejects a label that cannot be rendered and keeps serving', async () => {
    const pool = createLabelRenderPool({ threads: 1, maxQueued: 100, log });
    try {
      await expect(pool.render('pdf', { ...label(1), plateNumber: '' })).rejects.toThrow(/label render failed/);
      expect((await pool.render('pdf', label(2))).subarray(0, 5).toString()).toBe('%PDF-');
    } finally {
      await pool.close();
    }
  });

  it('answers 503 at once beyond its queue, and after close', async () => {
    const pool = createLabelRenderPool({ threads: 1, maxQueued: 2, log });
    const accepted = [pool.render('pdf', label(1)), pool.render('pdf', label(2)), pool.render('pdf', label(3))];
    const refused = await pool.render('pdf', label(4)).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).code).toBe('service-unavailable');
    expect((refused as AppError).headers).toEqual({ 'Retry-After': '1' });
    await Promise.all(accepted);
    await pool.close();
    await expect(pool.render('zpl', label(5))).rejects.toMatchObject({ code: 'service-unavailable' });
  });
});
