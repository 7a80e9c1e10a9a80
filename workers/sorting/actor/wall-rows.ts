import type { WallStateJson } from '../queries/wall-load.queries';
import { WallState, type ItemRow, type LineRow, type OrderRow, type SessionRow, type SlotRow, type WallRow } from './wall-state';

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

/** The wall's state as the load returns it (wall-load.queries.ts), with the ids taken ahead. */
export function stateFromJson(j: WallStateJson & { wall: Record<string, unknown> }): WallState {
  const state = new WallState(wallFromJson(j.wall));
  for (const s of j.slots) state.slots.set(s.id as number, slotFromJson(s));
  for (const s of j.sessions) state.sessions.set(s.id as number, sessionFromJson(s));
  for (const i of j.items) state.items.set(i.id as number, itemFromJson(i));
  for (const c of j.confirmed) state.addConfirmed(c.slotId, c.orderId, Number(c.count));
  for (const o of j.orders) state.putOrder(orderFromJson(o));
  state.itemIds.push(...(j.itemIds ?? []).map(Number));
  state.sessionIds.push(...(j.sessionIds ?? []).map(Number));
  return state;
}
