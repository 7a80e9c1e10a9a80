import { ForeignKeyConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { emSql } from '../../../../shared/db/orm-sql';
import { AppError } from '../../../../shared/errors/app-error';
import { DEFAULT_PRINTER_PORT } from '../../../../shared/labels/print-job';
import { toPrinterDto, toPrintJobDto, type PrinterDto, type PrintJobDto } from './printer.dto';
import { createPrinter, deletePrinter, getPrinter, listPrinterJobs, listPrinters, setWallPrinter, wallPrinterSettings } from './printers.queries';

/* Printers of a client and the printer each wall names (docs/api.md §12). */

export interface PrinterInput {
  name: string;
  host: string;
  port?: number;
}

/** POST /printers. */
export async function addPrinter(em: EntityManager, clientId: number, input: PrinterInput): Promise<PrinterDto> {
  const [row] = await createPrinter(emSql(em), { clientId, name: input.name, host: input.host, port: input.port ?? DEFAULT_PRINTER_PORT });
  return toPrinterDto(row!);
}

/** GET /printers: oldest first, each with its health. */
export async function printers(em: EntityManager, clientId: number): Promise<PrinterDto[]> {
  return (await listPrinters(emSql(em), { clientId })).map(toPrinterDto);
}

const printerNotFound = (id: number) => new AppError('not-found', `Your company has no printer ${id}.`);

/** GET /printers/{id}. */
export async function printer(em: EntityManager, clientId: number, id: number): Promise<PrinterDto> {
  const [row] = await getPrinter(emSql(em), { clientId, id });
  if (!row) throw printerNotFound(id);
  return toPrinterDto(row);
}

/** GET /printers/{id}/jobs: its latest jobs, newest first. */
export async function printerJobs(em: EntityManager, clientId: number, id: number, count: number): Promise<PrintJobDto[]> {
  await printer(em, clientId, id);
  return (await listPrinterJobs(emSql(em), { clientId, printerId: id, count })).map(toPrintJobDto);
}

/** DELETE /printers/{id}: refused while a wall names it; its jobs go with it. */
export async function removePrinter(em: EntityManager, clientId: number, id: number): Promise<void> {
  let row: { existed: boolean; walls: string[] | null; deleted: boolean } | undefined;
  try {
    [row] = await deletePrinter(emSql(em), { clientId, id });
  } catch (err) {
    // A wall named it between the statement's snapshot and its delete: the foreign key refused.
    if (err instanceof ForeignKeyConstraintViolationException || (err as { code?: string }).code === '23503') throw new AppError('printer-in-use', `Printer ${id} was just named as a wall's printer: name another printer for that wall first.`);
    throw err;
  }
  if (!row?.existed) throw printerNotFound(id);
  if (!row.deleted) {
    const walls = (row.walls ?? []).map((w) => `'${w}'`).join(', ');
    throw new AppError('printer-in-use', `Printer ${id} is the printer of wall ${walls}: name another printer for ${row.walls && row.walls.length > 1 ? 'those walls' : 'that wall'} (or none, printerId null) with PATCH /walls/{id} first.`);
  }
}

/** What a wall record adds about printing. */
export interface WallPrinting {
  printerId: number | null;
  autoPrint: boolean;
}

/** Each wall's printer and autoPrint setting (none and false for a wall that never had one). */
export async function wallPrinting(em: EntityManager, clientId: number, wallIds: number[]): Promise<Map<number, WallPrinting>> {
  const settings = new Map<number, WallPrinting>(wallIds.map((id) => [id, { printerId: null, autoPrint: false }]));
  if (wallIds.length === 0) return settings;
  for (const r of await wallPrinterSettings(emSql(em), { clientId, wallIds })) settings.set(r.wall_id, { printerId: r.printer_id, autoPrint: r.auto_print });
  return settings;
}

/** A Wall record (or a list of them) with its printing fields. */
export async function withPrinting<W extends { id: number }>(em: EntityManager, clientId: number, walls: W): Promise<W & WallPrinting>;
export async function withPrinting<W extends { id: number }>(em: EntityManager, clientId: number, walls: W[]): Promise<(W & WallPrinting)[]>;
export async function withPrinting<W extends { id: number }>(em: EntityManager, clientId: number, walls: W | W[]): Promise<(W & WallPrinting) | (W & WallPrinting)[]> {
  const list = Array.isArray(walls) ? walls : [walls];
  const settings = await wallPrinting(em, clientId, list.map((w) => w.id));
  const merged = list.map((w) => ({ ...w, ...settings.get(w.id)! }));
  return Array.isArray(walls) ? merged : merged[0]!;
}

/** Checks a printer a wall is to name: 404 printer-not-found when it is not the caller's. */
export async function assertPrinterExists(em: EntityManager, clientId: number, printerId: number): Promise<void> {
  const [row] = await getPrinter(emSql(em), { clientId, id: printerId });
  if (!row) {
    throw new AppError('printer-not-found', `Your company has no printer ${printerId}: register it with POST /printers, or list yours with GET /printers.`, {
      errors: [{ path: 'printerId', message: 'no such printer' }],
    });
  }
}

/** Writes a wall's printing fields that are given (the wall exists: the caller checked). */
export async function setWallPrinting(em: EntityManager, clientId: number, wallId: number, changes: Partial<WallPrinting>): Promise<void> {
  if (changes.printerId === undefined && changes.autoPrint === undefined) return;
  await setWallPrinter(emSql(em), {
    clientId,
    wallId,
    setPrinter: changes.printerId !== undefined,
    printerId: changes.printerId ?? null,
    autoPrint: changes.autoPrint ?? null,
  });
}
