import type { SqlDatabase } from '../../shared/db/named-sql';
import { sorterBarcode } from '../../shared/domain/barcodes';
import { AppError } from '../../shared/errors/app-error';
import type { CommandClient } from '../../shared/commands/command-client';
import { writeGatewayEvents } from './controllers';
import type { LightsEngine } from './lights-engine';
import { slotForButton } from './lights.queries';
import type { ButtonPress } from './mqtt/mqtt-driver';

export interface ButtonDeps {
  db: SqlDatabase;
  commands: CommandClient;
  engine: LightsEngine;
  /** How long a press's command is sent again while it gets no answer (default PRESS_RETRY_MS). */
  retryForMs?: number;
  /** Told of each retry (the gateway logs it). */
  onRetry?: (err: unknown, waitMs: number) => void;
}

/** A press counts for this long: its command is sent again while the sorting worker does not answer. */
export const PRESS_RETRY_MS = 30_000;

/** What a press did: a command's item, the gateway's own refusal, a command's refusal, or a button test. */
export type ButtonOutcome =
  | { kind: 'confirmed' | 'cancelled'; itemId: number }
  | { kind: 'refused'; code: string; detail: string }
  | { kind: 'tested' };

/**
 * A slot button pressed on a device (docs/lights.md "Buttons"):
 * - confirm on a lit slot confirms its oldest pending scan, as that scan's own sorter: the same
 *   `item.confirm` command as scanning the slot's A- barcode, through the wall's queue;
 * - short on a lit slot cancels its oldest pending scan (the unit did not go in) with the reason
 *   `short-button`, which the audit log records; no PIN is asked (the sorter stands at the slot);
 * - either button on a dark slot is refused on the device: the slot flashes red, and a `lights.button`
 *   event tells the hub and the audit log;
 * - confirm on a slot whose oldest pending scan needs its unit's serial number is refused the same way
 *   (`serial-required`): a button cannot supply one; the sorter confirms with the serial's scan;
 * - during a light test or the show-address mode a press only flashes its slot white (a button test).
 * A command refused by the sorting worker (the scan was confirmed by a scan meanwhile) flashes red too;
 * its refusal is recorded as every refused command is.
 */
export async function pressButton(deps: ButtonDeps, press: ButtonPress): Promise<ButtonOutcome> {
  const [slot] = await slotForButton(deps.db, { clientId: press.clientId, serialNumber: press.serialNumber });
  if (!slot || (press.wallId !== null && slot.wallId !== press.wallId)) {
    const detail = slot
      ? `Slot ${slot.crc} is on wall ${slot.wallId}, not on wall ${press.wallId}: the controller's topic is out of date.`
      : `No slot has the serial number '${press.serialNumber}': attach it to a wall or correct the controller's mapping.`;
    await writeGatewayEvents(deps.db, [
      { clientId: press.clientId, wallId: slot?.wallId ?? press.wallId, type: 'lights.button', data: buttonData(press, slot, 'not-found', detail) },
    ]);
    return { kind: 'refused', code: 'not-found', detail };
  }
  if (slot.mode) {
    await deps.engine.flash(slot.wallId, [{ crc: slot.crc, color: 'White' }]);
    return { kind: 'tested' };
  }
  const item = slot.pending[0];
  if (!item) {
    const detail = `Slot ${slot.position} has no scan waiting for confirmation: scan a product first.`;
    await Promise.all([
      deps.engine.flash(slot.wallId, [{ crc: slot.crc, color: 'Red' }]),
      writeGatewayEvents(deps.db, [{ clientId: press.clientId, wallId: slot.wallId, type: 'lights.button', data: buttonData(press, slot, 'nothing-to-confirm', detail) }]),
    ]);
    return { kind: 'refused', code: 'nothing-to-confirm', detail };
  }
  if (press.button === 'confirm' && item.requiresSerial) {
    const detail = `Slot ${slot.position}: each unit of ${item.sku} needs its serial number, which a button cannot give. Scan the slot's A- barcode, then the unit's serial.`;
    await Promise.all([
      deps.engine.flash(slot.wallId, [{ crc: slot.crc, color: 'Red' }]),
      writeGatewayEvents(deps.db, [{ clientId: press.clientId, wallId: slot.wallId, type: 'lights.button', data: buttonData(press, slot, 'serial-required', detail) }]),
    ]);
    return { kind: 'refused', code: 'serial-required', detail };
  }
  // As the scan's own sorter (the least role: the worker checks it is theirs).
  const actor = { clientId: press.clientId, wallId: slot.wallId, userId: item.userId, roles: ['Sorter' as const] };
  try {
    if (press.button === 'confirm') {
      await untilAnswered(deps, 'item-already-confirmed', () =>
        deps.commands.execute('item.confirm', { ...actor, itemId: item.id, units: item.units, barcode: sorterBarcode(slot.crc), serial: null }),
      );
      return { kind: 'confirmed', itemId: item.id };
    }
    await untilAnswered(deps, 'item-already-cancelled', () => deps.commands.execute('item.cancel', { ...actor, itemId: item.id, reason: 'short-button' }));
    return { kind: 'cancelled', itemId: item.id };
  } catch (err) {
    if (!(err instanceof AppError) || err.status >= 500) throw err;
    await deps.engine.flash(slot.wallId, [{ crc: slot.crc, color: 'Red' }]);
    return { kind: 'refused', code: err.code, detail: err.message };
  }
}

/**
 * Sends a press's command until the sorting worker answers it, for at most `retryForMs` (docs/lights.md,
 * "Buttons"): a person pressed once and expects it to count, so a 503 (no capacity, Redis away, the
 * command withdrawn) or a 504 (no answer in time: it may still apply) is sent again for the same item,
 * after the Retry-After the answer gave. The same item, never the slot's next pending scan: a 504'd
 * confirm that did apply meanwhile answers the retry "already confirmed", which is this press's success.
 */
async function untilAnswered(deps: ButtonDeps, doneCode: 'item-already-confirmed' | 'item-already-cancelled', send: () => Promise<unknown>): Promise<void> {
  const deadline = Date.now() + (deps.retryForMs ?? PRESS_RETRY_MS);
  let unanswered = false;
  for (;;) {
    try {
      await send();
      return;
    } catch (err) {
      if (err instanceof AppError && err.status < 500) {
        if (unanswered && err.code === doneCode) return;
        throw err;
      }
      const retryAfterS = Number(err instanceof AppError ? err.headers?.['Retry-After'] : undefined);
      const waitMs = Math.min(Math.max(Number.isFinite(retryAfterS) ? retryAfterS * 1000 : 1000, 250), 5000);
      if (Date.now() + waitMs > deadline) throw err;
      unanswered = true;
      deps.onRetry?.(err, waitMs);
      await new Promise<void>((resolve) => setTimeout(resolve, waitMs).unref());
    }
  }
}

function buttonData(press: ButtonPress, slot: { crc: string; position: number } | undefined, code: string, detail: string) {
  return { serialNumber: press.serialNumber, crc: slot?.crc ?? null, position: slot?.position ?? null, button: press.button, driver: press.driver, code, detail };
}
