import { isSecretName, REDACTED, redactSecrets, redactText, redactUrl } from '../../shared/logging/redact';

const JWT = 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c';

describe('redaction of secrets', () => {
  it('knows the secret names in any case and spelling, and leaves others alone', () => {
    for (const n of ['access_token', 'ACCESS_TOKEN', 'token', 'pin', 'PIN', 'password', 'secret', 'sessionToken', 'session_token', 'Authorization', 'x-pin', 'X-Pin', 'cookie', 'adminPassword', 'webhookSecret', 'pin[]']) {
      expect(isSecretName(n)).toBe(true);
    }
    for (const n of ['wallId', 'pinLength', 'token_type', 'expires_in', 'barcode', 'spinner', 'units', 'tokens', 'count']) expect(isSecretName(n)).toBe(false);
  });

  it('redacts secret query parameters, percent-encoded or repeated, and the session token in a path', () => {
    expect(redactUrl(`/api/v1/events?wallId=999&access_token=${JWT}`)).toBe(`/api/v1/events?wallId=999&access_token=${REDACTED}`);
    expect(redactUrl('/api/v1/security/pin/validate?pin=9966')).toBe(`/api/v1/security/pin/validate?pin=${REDACTED}`);
    expect(redactUrl('/x?Access%5FToken=abc&PIN=1&pin=2&password&secret=s;token=t&units=3')).toBe(`/x?Access%5FToken=${REDACTED}&PIN=${REDACTED}&pin=${REDACTED}&password&secret=${REDACTED};token=${REDACTED}&units=3`);
    expect(redactUrl('/api/v1/walls/12/sessions/Zk3-abc_DEF?x=1')).toBe(`/api/v1/walls/12/sessions/${REDACTED}?x=1`);
    expect(redactUrl('/api/v1/walls/12/sessions')).toBe('/api/v1/walls/12/sessions');
    expect(redactUrl('/api/v1/audit-logs/sessions?userId=3')).toBe('/api/v1/audit-logs/sessions?userId=3');
    expect(redactUrl('/api/v1/sort-box-items/7/confirm?units=2')).toBe('/api/v1/sort-box-items/7/confirm?units=2');
  });

  it('redacts secrets inside free text: pairs, JSON fields, bearer credentials, JWTs', () => {
    expect(redactText(`GET /api/v1/events?wallId=1&access_token=${JWT} failed`)).toBe(`GET /api/v1/events?wallId=1&access_token=${REDACTED} failed`);
    expect(redactText('{"username":"a@b.c","password":"hunter2 \\"x\\""}')).toBe(`{"username":"a@b.c","password":"${REDACTED}"}`);
    expect(redactText('authorization: Bearer abc.def-ghi')).toBe(`authorization: Bearer ${REDACTED}`);
    expect(redactText(`token ${JWT} expired`)).toBe(`token ${REDACTED} expired`);
    expect(redactText('PUT /api/v1/walls/3/sessions/s3cr3t-token answered 409')).toBe(`PUT /api/v1/walls/3/sessions/${REDACTED} answered 409`);
    expect(redactText('applying 3 migration(s)')).toBe('applying 3 migration(s)');
  });

  it('redacts the fields of plain objects and arrays (headers, bodies, job data), not other objects', () => {
    const err = new Error('x');
    const input = {
      headers: { authorization: `Bearer ${JWT}`, 'x-pin': '1234', cookie: 'queue_dashboard=abc', accept: 'application/json' },
      body: { username: 'a@b.c', password: 'hunter2', items: [{ sessionToken: 'tok', barcode: 'MUG12' }] },
      pin: 9966,
      empty: { secret: null },
      url: '/x?token=abc',
      err,
    };
    const out = redactSecrets(input);
    expect(out).toEqual({
      headers: { authorization: REDACTED, 'x-pin': REDACTED, cookie: REDACTED, accept: 'application/json' },
      body: { username: 'a@b.c', password: REDACTED, items: [{ sessionToken: REDACTED, barcode: 'MUG12' }] },
      pin: REDACTED,
      empty: { secret: null },
      url: `/x?token=${REDACTED}`,
      err,
    });
    expect(out.err).toBe(err);
    expect(input.body.password).toBe('hunter2');
  });
});
