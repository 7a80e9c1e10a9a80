import type { ItemRow, LineRow, OrderRow, SessionRow, SlotRow, WallRow } from './wall-state';

/*
 * Rows as the actor's statements return them (JSON: dates are ISO strings, bigints may be strings),
 * turned into the typed rows it holds.
 */

type Json = Record<string, unknown>;
const date = (v: unknown): Date => new Date(v as string);
const dateOrNull = (v: unknown): Date | null => (v === null || v === undefined ? null : new Date(v as string));

export function wallFromJson(j: Json): WallRow {
  return { ...(j as unknown as WallRow), createdAt: date(j.createdAt), version: Number(j.version) };
}

export function slotFromJson(j: Json): SlotRow {
  return { ...(j as unknown as SlotRow), assignedAt: dateOrNull(j.assignedAt) };
}

export function sessionFromJson(j: Json): SessionRow {
  return {
    ...(j as unknown as SessionRow),
    startedAt: date(j.startedAt),
    lastActivityAt: date(j.lastActivityAt),
    expiresAt: date(j.expiresAt),
    endedAt: dateOrNull(j.endedAt),
  };
}

export function itemFromJson(j: Json): ItemRow {
  return { ...(j as unknown as ItemRow), createdAt: date(j.createdAt), confirmedAt: dateOrNull(j.confirmedAt), cancelledAt: dateOrNull(j.cancelledAt) };
}

export function orderFromJson(j: Json): OrderRow {
  return {
    ...(j as unknown as OrderRow),
    orderDate: date(j.orderDate),
    lines: ((j.lines as LineRow[] | null) ?? []).map((l) => ({ ...l })),
    picklistIds: (j.picklistIds as number[] | null) ?? [],
  };
}
