/**
 * The API-key cache of one process: a valid key's principal is trusted for a few seconds, and every
 * miss (a first request, or an entry that just expired) makes one database lookup however many
 * requests wait on it: they share the lookup in flight (single flight).
 */

/** How long a pod trusts a key lookup; a key revoked through another pod stops working within this. */
export const KEY_CACHE_TTL_MS = 5_000;
const KEY_CACHE_SIZE = 10_000;

export class KeyCache<P extends { keyId: string }> {
  private readonly recent = new Map<string, { principal: P; until: number }>();
  private readonly inFlight = new Map<string, Promise<P | null>>();
  /** Bumped by `forget`: a lookup that started before a revocation must not cache what it read. */
  private generation = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** The principal of `hash`, from the cache or from `lookup` (null: no such valid key, not cached). */
  get(hash: string, lookup: () => Promise<P | null>): Promise<P | null> {
    const cached = this.recent.get(hash);
    if (cached && cached.until > this.now()) return Promise.resolve(cached.principal);
    const pending = this.inFlight.get(hash);
    if (pending) return pending;
    const started = this.generation;
    const loading = lookup()
      .then((principal) => {
        if (!principal) this.recent.delete(hash);
        else if (started === this.generation) this.remember(hash, principal);
        return principal;
      })
      .finally(() => this.inFlight.delete(hash));
    this.inFlight.set(hash, loading);
    return loading;
  }

  /** Drops every entry of a key (revoked here), and keeps lookups already under way from caching it. */
  forget(keyId: string): void {
    this.generation++;
    for (const [hash, entry] of this.recent) if (entry.principal.keyId === keyId) this.recent.delete(hash);
  }

  private remember(hash: string, principal: P): void {
    this.recent.delete(hash);
    if (this.recent.size >= KEY_CACHE_SIZE) this.recent.delete(this.recent.keys().next().value!);
    this.recent.set(hash, { principal, until: this.now() + KEY_CACHE_TTL_MS });
  }
}
