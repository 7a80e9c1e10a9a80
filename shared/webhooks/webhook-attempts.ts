/**
 * Webhook deliveries (docs/api.md §8: "at least an hour"): 12 attempts, the waits doubling from
 * WEBHOOK_RETRY_BASE_MS; with the 5 s default the 11 waits add up to about 2 h 50 min. Read by the
 * webhook senders, which schedule the attempts, and by the sweeper, which gives up a delivery whose
 * last attempt was never recorded.
 */
export const WEBHOOK_MAX_ATTEMPTS = 12;
