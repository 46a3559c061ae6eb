/** Who is calling: an `x-api-key` resolved to its organization, and each request counted against the key's ceiling. */
import { AppError } from "../errors.js";
import type { Allowances } from "../sessions/redis/allowances.js";
import type { KeyScope, OrganizationStore, Principal } from "./store/organizations.js";

/** `forbidden` unless the key carries the scope. */
export function requireScope(principal: Principal, scope: KeyScope): void {
  if (!principal.scopes.includes(scope)) throw new AppError("forbidden", `this API key lacks the ${scope} scope`);
}

/** Longer values are refused without a lookup: no key is this long. */
const MAX_KEY_LENGTH = 256;

export class AccessService {
  constructor(
    private readonly organizations: OrganizationStore,
    private readonly allowances: Allowances,
  ) {}

  /**
   * The key's principal (served from the key cache on the hot path), or `unauthorized`; `forbidden` when
   * the key lacks `scope` (null: the route checks its own).
   */
  async identify(apiKey: string, scope: KeyScope | null = "api", missing = "missing x-api-key header"): Promise<Principal> {
    if (!apiKey) throw new AppError("unauthorized", missing);
    const principal = apiKey.length <= MAX_KEY_LENGTH ? await this.organizations.authenticate(apiKey) : null;
    if (!principal) throw new AppError("unauthorized", "invalid or revoked API key");
    if (scope) requireScope(principal, scope);
    return principal;
  }

  /** Counts one request against the key's ceiling; rejects with `rate_limited` past it. */
  charge(principal: Principal): Promise<void> {
    return this.allowances.request(principal.keyId, principal.requestsPerMinute);
  }
}
