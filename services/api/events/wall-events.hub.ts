import type { Redis } from '../../../shared/redis/redis';
import { AppError } from '../../../shared/errors/app-error';
import { wallEventsChannel } from '../../../shared/events/channels';
import { keepSubscribed } from '../../../shared/redis/subscriber';

const unavailable = () =>
  new AppError('service-unavailable', 'The live event feed is unavailable (Redis does not answer); retry in a moment.', {
    headers: { 'Retry-After': '5' },
  });

export interface WallEventListener {
  /** One message of the wall's channel (shared/events/channels.ts, wallEventMessage). */
  message(message: string): void;
  /**
   * The subscription is lost (Redis restarted, a network gap): what was published meanwhile will not
   * come, and the messages that arrive once the subscription is back, before `resumed`, follow a gap.
   */
  lost(): void;
  /**
   * The subscription was lost and is back (Redis restarted, a network gap): messages published
   * meanwhile never came. Called once the subscription is in place again.
   */
  resumed(): void;
}

interface Channel {
  listeners: Set<WallEventListener>;
  /** The Redis SUBSCRIBE of this channel; every listener waits for it. */
  subscribed: Promise<unknown>;
}

/**
 * One Redis subscription per wall per API process, shared by every hub connected to that wall
 * (SSE or WebSocket); the outbox relay publishes each relayed event of the wall there. When the
 * subscriber's connection is lost and comes back (its channels subscribed again: keepSubscribed), every
 * listener is told, so it can catch up from the outbox (event-stream.ts).
 */
export class WallEventsHub {
  private readonly channels = new Map<string, Channel>();
  private lost = false;

  constructor(
    private readonly subscriber: Redis,
    private readonly prefix: string,
  ) {
    subscriber.on('message', (channel: string, message: string) => {
      for (const l of this.channels.get(channel)?.listeners ?? []) {
        // One connection's failure (a malformed message, a write to a dying socket) must neither reach
        // the other connections nor escape the Redis event handler (an uncaught exception stops the process).
        try {
          l.message(message);
        } catch {
          // the connection's own close handler releases it
        }
      }
    });
    subscriber.on('close', () => {
      if (this.lost) return;
      this.lost = true;
      this.tell((l) => l.lost());
    });
    // Once every wall's channel is subscribed again, nothing published from then on is missed while the
    // listeners catch up.
    keepSubscribed(subscriber, () => [...this.channels.keys()], {
      resumed: () => {
        if (!this.lost) return;
        this.lost = false;
        this.tell((l) => l.resumed());
      },
    });
  }

  /** Tells every listener of every wall; one listener's failure reaches neither the others nor the Redis event handler. */
  private tell(what: (l: WallEventListener) => void): void {
    for (const c of this.channels.values()) {
      for (const l of c.listeners) {
        try {
          what(l);
        } catch {
          // the connection's own close handler releases it
        }
      }
    }
  }

  /** Listeners of every wall in this process (the `wall_event_listeners` gauge): 0 when no hub is connected. */
  listenerCount(): number {
    let n = 0;
    for (const c of this.channels.values()) n += c.listeners.size;
    return n;
  }

  /**
   * Adds a listener once the wall's channel is subscribed. Redis unreachable: 503, and nothing is
   * left behind. The returned function removes the listener; it is idempotent and never rejects.
   */
  async subscribe(wallId: number, listener: WallEventListener): Promise<() => Promise<void>> {
    const name = wallEventsChannel(this.prefix, wallId);
    // A connection that lost Redis and is reconnecting: answered at once, not after its command timeout.
    if (this.subscriber.status === 'reconnecting' || this.subscriber.status === 'end' || this.subscriber.status === 'close') throw unavailable();
    let channel = this.channels.get(name);
    if (!channel) {
      const created: Channel = { listeners: new Set(), subscribed: this.subscriber.subscribe(name) };
      // A failed SUBSCRIBE must not stay cached: the next connection tries again.
      created.subscribed.catch(() => {
        if (this.channels.get(name) === created) this.channels.delete(name);
      });
      this.channels.set(name, created);
      channel = created;
    }
    const current = channel;
    current.listeners.add(listener);
    let removed = false;
    const remove = async () => {
      if (removed) return;
      removed = true;
      current.listeners.delete(listener);
      if (current.listeners.size === 0 && this.channels.get(name) === current) {
        this.channels.delete(name);
        await this.subscriber.unsubscribe(name).catch(() => undefined);
      }
    };
    try {
      await current.subscribed;
    } catch {
      removed = true;
      current.listeners.delete(listener);
      throw unavailable();
    }
    return remove;
  }

  close(): void {
    this.channels.clear();
    this.subscriber.disconnect();
  }
}
