import { version } from '../../package.json';

/** Names the sender to a webhook receiver (its logs, firewalls and allow-lists). */
export const WEBHOOK_USER_AGENT = `sorting-wall-service/${version} (webhooks)`;
