import { WallChanges } from '../../workers/sorting/actor/wall-changes';
import type { CommandContext } from '../../workers/sorting/actor/wall-actor';
import type { SessionRow, WallState } from '../../workers/sorting/actor/wall-state';
import { ACTIVITY_WRITE_INTERVAL_MS, touchSession } from '../../workers/sorting/session-access';

/* A session's activity is written at most once a minute: an idle expiry of hours needs no per-scan precision. */

const IDLE = 8 * 3_600_000;
const start = new Date('2026-12-01T08:00:00Z');

function session(lastActivityAt: Date, expiresAt = new Date(lastActivityAt.getTime() + IDLE)): SessionRow {
  return { id: 7, token: 't', clientId: 1, wallId: 2, userId: 3, picklistId: null, color: 'red', status: 'Connected', startedAt: start, lastActivityAt, expiresAt, endedAt: null, endReason: null } as unknown as SessionRow;
}

function touchAt(s: SessionRow, at: Date): WallChanges {
  const state = { wall: { clientId: 1, id: 2 }, sessions: new Map([[s.id, s]]) } as unknown as WallState;
  const changes = new WallChanges(state, at);
  touchSession({ state, changes, now: at, idleTimeoutMs: IDLE } as unknown as CommandContext, s);
  return changes;
}

describe('session activity', () => {
  it('leaves a session whose stored activity is less than a minute old as it is', () => {
    const changes = touchAt(session(start), new Date(start.getTime() + ACTIVITY_WRITE_INTERVAL_MS - 1));
    expect(changes.sessions.size).toBe(0);
  });

  it('writes the activity and the expiry once a minute has passed', () => {
    const at = new Date(start.getTime() + ACTIVITY_WRITE_INTERVAL_MS);
    const written = touchAt(session(start), at).sessions.get(7);
    expect(written?.lastActivityAt).toEqual(at);
    expect(written?.expiresAt).toEqual(new Date(at.getTime() + IDLE));
  });

  it('with an idle timeout of seconds, writes every tenth of it', () => {
    const idle = 5_000;
    const state = { wall: { clientId: 1, id: 2 }, sessions: new Map() } as unknown as WallState;
    const touch = (at: number) => {
      const changes = new WallChanges(state, new Date(start.getTime() + at));
      touchSession({ state, changes, now: new Date(start.getTime() + at), idleTimeoutMs: idle } as unknown as CommandContext, session(start, new Date(start.getTime() + idle)));
      return changes.sessions.size;
    };
    expect(touch(499)).toBe(0);
    expect(touch(500)).toBe(1);
  });

  it('writes at once when the stored expiry falls a minute or more short of the timeout from now', () => {
    const at = new Date(start.getTime() + 1000);
    const written = touchAt(session(start, new Date(start.getTime() + 60_000)), at).sessions.get(7);
    expect(written?.expiresAt).toEqual(new Date(at.getTime() + IDLE));
  });
});
