import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

// Where a webhook must not point unless WEBHOOK_ALLOW_PRIVATE_TARGETS: the service's own network
// (SSRF). Loopback, RFC 1918, CGNAT, link-local (cloud metadata at 169.254.169.254), unique-local.
const PRIVATE = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 3],
] as const) PRIVATE.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) PRIVATE.addSubnet(net, bits, 'ipv6');

/** True for an address of a private, loopback, link-local or otherwise non-public range. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return PRIVATE.check(address, 'ipv4');
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped) return PRIVATE.check(mapped[1], 'ipv4');
    return PRIVATE.check(address, 'ipv6');
  }
  return false;
}

// Which setting lifts the refusal, for the operator who runs receivers on a private network.
const ALLOW_HINT = 'the service accepts such targets only when started with WEBHOOK_ALLOW_PRIVATE_TARGETS=true';

/**
 * Why `url` cannot be a webhook target, or null when it can. Checks the scheme, and (unless private
 * targets are allowed) IP literals and `localhost`; DNS names are checked at delivery time.
 */
export function webhookUrlProblem(url: string, allowPrivate: boolean): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'must be an absolute http(s) URL';
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return 'must be an http or https URL';
  if (parsed.username || parsed.password) return 'must not carry a user name or password';
  if (allowPrivate) return null;
  const host = parsed.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return `must not point at this service's own host ('${host}'); ${ALLOW_HINT}`;
  if (isIP(host) && isPrivateAddress(host)) return `must point at a public address; ${host} is private, loopback or link-local; ${ALLOW_HINT}`;
  return null;
}

/** Resolves the URL's host and refuses private answers (a public name may resolve to 127.0.0.1). */
export async function assertPublicTarget(url: string, allowPrivate: boolean): Promise<void> {
  const problem = webhookUrlProblem(url, allowPrivate);
  if (problem) throw new Error(`webhook URL ${problem}`);
  if (allowPrivate) return;
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) return;
  const answers = await lookup(host, { all: true, verbatim: true });
  const bad = answers.find((a) => isPrivateAddress(a.address));
  if (bad) throw new Error(`webhook host '${host}' resolves to ${bad.address}, a private address; refused (${ALLOW_HINT})`);
}
