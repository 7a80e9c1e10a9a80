import type { Redis } from '../../../shared/redis/redis';
import { wallEventsChannel } from '../../../shared/events/channels';

export type WallEventListener = (event: string) => void;

/**
 * One Redis subscription per wall per API process, shared by every hub connected to that wall
 * (SSE or WebSocket); the outbox relay publishes each committed event of the wall there.
 */
export class WallEventsHub {
  private readonly listeners = new Map<string, Set<WallEventListener>>();

  constructor(
    private readonly subscriber: Redis,
    private readonly prefix: string,
  ) {
    subscriber.on('message', (channel: string, message: string) => {
      for (const l of this.listeners.get(channel) ?? []) l(message);
    });
  }

  async subscribe(wallId: number, listener: WallEventListener): Promise<() => Promise<void>> {
    const channel = wallEventsChannel(this.prefix, wallId);
    let set = this.listeners.get(channel);
    if (!set) {
      set = new Set();
      this.listeners.set(channel, set);
      await this.subscriber.subscribe(channel);
    }
    set.add(listener);
    return async () => {
      set!.delete(listener);
      if (set!.size === 0 && this.listeners.get(channel) === set) {
        this.listeners.delete(channel);
        await this.subscriber.unsubscribe(channel).catch(() => undefined);
      }
    };
  }

  close(): void {
    this.listeners.clear();
    this.subscriber.disconnect();
  }
}
