import { createHmac, randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';

/** A new Standard Webhooks secret: `whsec_` + base64 of 24 random bytes. */
export function newWebhookSecret(): string {
  return PREFIX + randomBytes(24).toString('base64');
}

/** The key is the base64 part after `whsec_` (Standard Webhooks), not the text of the secret. */
export function webhookSecretKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
}

/** Headers of one Standard Webhooks delivery: `webhook-signature: v1,<base64 HMAC-SHA256(key, id.timestamp.body)>`. */
export function signWebhook(secret: string, id: string, timestampSeconds: number, body: string): Record<string, string> {
  const signature = createHmac('sha256', webhookSecretKey(secret)).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': `v1,${signature}`,
  };
}
