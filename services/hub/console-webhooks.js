// @ts-check
// The console's Webhooks tab (Admins): the subscriptions (Remove), a subscription's delivery attempts,
// a new subscription with its signing secret.
import { api, el } from './common.js';
import { act, button, cell, form, node, refuse, value, when } from './console-ui.js';

/** @typedef {import('./types').Responses} Responses */
/** @typedef {Responses['ListWebhooks'][number]} Webhook */

export async function loadWebhooks() {
  /** @type {Responses['ListWebhooks']} */
  const hooks = await api('GET', '/api/v1/admin/webhooks');
  node('#webhooks').replaceChildren(
    ...hooks.map((h) =>
      el(
        'tr',
        {},
        cell('td', h.url, 'mono'),
        cell('td', h.events.join(', ')),
        cell('td', when(h.createdAt)),
        el(
          'td.row-actions',
          {},
          button('Deliveries', () => showDeliveries(h).catch(refuse)),
          button('Remove', () =>
            act(async () => {
              await api('DELETE', `/api/v1/admin/webhooks/${h.id}`);
              node('#deliveries-card').hidden = true;
              await loadWebhooks();
              return `The webhook to ${h.url} is removed, with its pending retries.`;
            }),
          ),
        ),
      ),
    ),
  );
}

/** @param {Webhook} h */
async function showDeliveries(h) {
  /** @type {Responses['ListWebhookDeliveries']} */
  const rows = await api('GET', `/api/v1/admin/webhooks/${h.id}/deliveries?count=50`);
  node('#deliveries-card').hidden = false;
  node('#deliveries-title').textContent = h.url;
  node('#deliveries').replaceChildren(
    ...rows.map((d) =>
      el(
        'tr',
        {},
        cell('td', when(d.attemptedAt)),
        cell('td', d.eventType),
        cell('td', d.attempt, 'num'),
        el('td', {}, el('span.state', { textContent: d.status, dataset: { state: d.status } })),
        cell('td', d.responseStatus ?? '–', 'num'),
        cell('td', d.error ?? '–'),
      ),
    ),
  );
  node('#no-deliveries').hidden = rows.length > 0;
}

/** The tab's form. */
export function wireWebhooks() {
  form('#new-webhook').addEventListener('submit', (e) => {
    e.preventDefault();
    const f = form('#new-webhook');
    const events = value(f, 'events').split(',').map((s) => s.trim()).filter(Boolean);
    act(async () => {
      /** @type {Responses['CreateWebhook']} */
      const h = await api('POST', '/api/v1/admin/webhooks', { body: { url: value(f, 'url'), events } });
      f.reset();
      await loadWebhooks();
      return `Webhook to ${h.url} added. Its signing secret, for the receiver: ${h.secret}`;
    });
  });
}
