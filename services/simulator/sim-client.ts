/** A thin HTTP client for the simulator: JSON in and out, the status and the time each call took. */
export interface SimResponse<T = any> {
  status: number;
  body: T;
  ms: number;
}

export class SimClient {
  constructor(private readonly baseUrl: string) {}

  async call<T = any>(method: string, path: string, opts: { auth?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<SimResponse<T>> {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.auth) headers.authorization = opts.auth;
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    const started = performance.now();
    try {
      const res = await fetch(`${this.baseUrl}${path}`, {
        method,
        headers,
        body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
        signal: AbortSignal.timeout(30_000),
      });
      const text = await res.text();
      let body: any = null;
      try {
        body = text ? JSON.parse(text) : null;
      } catch {
        body = { detail: text.slice(0, 200) };
      }
      return { status: res.status, body: body as T, ms: performance.now() - started };
    } catch (err) {
      // No answer at all (refused, reset, timed out): status 0, the code says why.
      return { status: 0, body: { code: 'no-connection', detail: (err as Error).message } as T, ms: performance.now() - started };
    }
  }

  /** Signs in; answers the bearer header value. */
  async signIn(username: string, password: string): Promise<string> {
    const res = await this.call<{ access_token: string }>('POST', '/token', { body: { username, password } });
    if (res.status !== 200) throw new Error(`sign-in of ${username} failed: HTTP ${res.status} ${JSON.stringify(res.body)}`);
    return `Bearer ${res.body.access_token}`;
  }
}

/** Fails loudly on an unexpected answer during set-up (the run itself counts refusals instead). */
export function expectOk<T>(res: SimResponse<T>, what: string, ok: number[] = [200]): T {
  if (!ok.includes(res.status)) throw new Error(`${what} failed: HTTP ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** The company id in a bearer token (the `cid` claim), to make e-mails unique per company. */
export function clientIdOf(auth: string): number {
  const payload = JSON.parse(Buffer.from(auth.slice(7).split('.')[1], 'base64url').toString('utf8')) as { cid: number };
  return payload.cid;
}
