/**
 * The API key lives in this tab's sessionStorage only: gone when the tab closes, never in a cookie
 * (no request carries it unasked) and never in a URL (it travels in the `x-api-key` header).
 */
const NAME = "agent-sessions.api-key";

export function storedKey(): string | null {
  return sessionStorage.getItem(NAME);
}

export function storeKey(key: string): void {
  sessionStorage.setItem(NAME, key);
}

/** Sign-out: the whole storage of the tab goes, whatever else a later version may keep there. */
export function forgetKey(): void {
  sessionStorage.clear();
}
