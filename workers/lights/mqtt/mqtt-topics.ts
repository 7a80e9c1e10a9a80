import { z } from 'zod';
import { lightRgb, type Light, type SlotLights } from '../../../shared/lights/light-model';

/*
 * The MQTT topic scheme and payloads (docs/lights.md "MQTT"). P is MQTT_TOPIC_PREFIX (`sorting`):
 *
 *   P/<clientId>/walls/<wallId>/slots/<serial>/front     gateway → controller, retained, QoS 1: the sorter-side light
 *   P/<clientId>/walls/<wallId>/slots/<serial>/back      gateway → controller, retained, QoS 1: the shipper-side light
 *   P/<clientId>/walls/<wallId>/slots/<serial>/button    controller → gateway, QoS 1: a press (confirm or short)
 *   P/<clientId>/controllers/<controllerId>/status       controller, retained (its last will says offline)
 *   P/<clientId>/controllers/<controllerId>/heartbeat    controller, every few seconds
 *   P/gateway/status                                     gateway, retained (its last will says offline)
 *
 * <serial> is the slot's serial number (its hardware id) as encodeURIComponent writes it, so any text
 * (a `/`, `+` or `#` in a dummy serial) stays one topic level; real ones (`0x1A2B3C4D`) are unchanged.
 */

export type Side = 'front' | 'back';
export const BUTTONS = ['confirm', 'short'] as const;
export type ButtonKind = (typeof BUTTONS)[number];

const LEVEL = /^[^/+#]+$/;
const int = (s: string | undefined): number | null => (s !== undefined && /^[1-9][0-9]{0,9}$/.test(s) ? Number(s) : null);
const decode = (s: string | undefined): string | null => {
  if (s === undefined) return null;
  try {
    const v = decodeURIComponent(s);
    return v.length >= 1 && v.length <= 128 ? v : null;
  } catch {
    return null;
  }
};

export interface SlotTopic {
  clientId: number;
  wallId: number;
  serialNumber: string;
  kind: Side | 'button';
}

export interface ControllerTopic {
  clientId: number;
  controllerId: string;
  kind: 'status' | 'heartbeat';
}

/** A light as its retained payload says it (JSON). `rgb` beside each color name, for controllers that mix their own. */
export function lightPayload(slot: Pick<SlotLights, 'crc' | 'position'>, light: Light): string {
  return JSON.stringify({ ...light, rgb: light.colors.map(lightRgb), crc: slot.crc, position: slot.position });
}

/** What a controller sends on a button topic; `id` (any text, unique per press) lets the gateway ignore a press delivered twice. */
export const buttonMessage = z.object({
  button: z.enum(BUTTONS),
  id: z.string().min(1).max(100).optional(),
});

/** A controller's status (retained; its last will is `{ "online": false }`) or heartbeat. */
export const controllerMessage = z.object({
  online: z.boolean().optional(),
  /** The serial numbers of the slots it drives: how it announces its slots. */
  slots: z.array(z.string().min(1).max(128)).max(10_000).optional(),
});

export class LightTopics {
  constructor(readonly prefix: string) {}

  private get depth(): number {
    return this.prefix.split('/').length;
  }

  slot(clientId: number, wallId: number, serialNumber: string, kind: SlotTopic['kind']): string {
    return `${this.prefix}/${clientId}/walls/${wallId}/slots/${encodeURIComponent(serialNumber)}/${kind}`;
  }

  controller(clientId: number, controllerId: string, kind: ControllerTopic['kind']): string {
    return `${this.prefix}/${clientId}/controllers/${controllerId}/${kind}`;
  }

  get gatewayStatus(): string {
    return `${this.prefix}/gateway/status`;
  }

  /** Buttons as a shared subscription: with several gateways each press reaches one of them. */
  get buttonFilter(): string {
    return `$share/sorting-lights/${this.prefix}/+/walls/+/slots/+/button`;
  }

  get controllerFilters(): string[] {
    return [`${this.prefix}/+/controllers/+/status`, `${this.prefix}/+/controllers/+/heartbeat`];
  }

  /** One wall's lights of one side, whatever client the topics name (the sweep reads them wall by wall). */
  wallLightFilter(wallId: number, side: Side): string {
    return `${this.prefix}/+/walls/${wallId}/slots/+/${side}`;
  }

  parseSlot(topic: string): SlotTopic | null {
    const parts = topic.split('/').slice(this.depth);
    if (!topic.startsWith(`${this.prefix}/`) || parts.length !== 6 || parts[1] !== 'walls' || parts[3] !== 'slots') return null;
    const [client, , wall, , serial, kind] = parts;
    const clientId = int(client);
    const wallId = int(wall);
    const serialNumber = decode(serial);
    if (clientId === null || wallId === null || serialNumber === null || !['front', 'back', 'button'].includes(kind!)) return null;
    return { clientId, wallId, serialNumber, kind: kind as SlotTopic['kind'] };
  }

  parseController(topic: string): ControllerTopic | null {
    const parts = topic.split('/').slice(this.depth);
    if (!topic.startsWith(`${this.prefix}/`) || parts.length !== 4 || parts[1] !== 'controllers') return null;
    const [client, , controllerId, kind] = parts;
    const clientId = int(client);
    if (clientId === null || !controllerId || !LEVEL.test(controllerId) || controllerId.length > 100 || (kind !== 'status' && kind !== 'heartbeat')) return null;
    return { clientId, controllerId, kind };
  }
}
