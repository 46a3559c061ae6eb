/**
 * Every Redis key name. Keys of one session carry `{<sessionId>}` as hash tag so they share a cluster
 * slot and Lua scripts over them stay legal; allowance keys share the tag of their counting scope.
 */

export const WINDOW_MS = 60_000;

export const keys = {
  keyCeiling: (keyId: string, windowStart: number) => `as:rl:key:{${keyId}}:${windowStart}`,
  allowance: (orgId: string, agentId: string, subjectId: string, kind: string, windowStart: number) =>
    `as:rl:{${orgId}:${agentId}:${subjectId}}:${kind}:${windowStart}`,
  sessionLog: (sessionId: string) => `as:{${sessionId}}:log`,
  sessionSeq: (sessionId: string) => `as:{${sessionId}}:seq`,
  sessionLive: (sessionId: string) => `as:{${sessionId}}:live`,
  sessionOverlay: (sessionId: string) => `as:{${sessionId}}:overlay`,
  sessionState: (sessionId: string) => `as:{${sessionId}}:state`,
  sessionLock: (sessionId: string) => `as:{${sessionId}}:lock`,
  wakeups: () => "as:wakeups",
} as const;

/** All keys one session owns, for deletion. */
export function sessionKeys(sessionId: string): string[] {
  return [
    keys.sessionLog(sessionId),
    keys.sessionSeq(sessionId),
    keys.sessionLive(sessionId),
    keys.sessionOverlay(sessionId),
    keys.sessionState(sessionId),
  ];
}
