/** Who is calling: an `x-api-key` resolved to its organization, and each request counted against the key's ceiling. */
import { AppError } from "../errors.js";
import type { Allowances } from "../redis/allowances.js";
import type { OrganizationStore, Principal } from "../store/organizations.js";

/** Longer values are refused without a lookup: no key is this long. */
const MAX_KEY_LENGTH = 256;

export class AccessService {
  constructor(
    private readonly organizations: OrganizationStore,
    private readonly allowances: Allowances,
  ) {}

  /** The key's principal (served from the key cache on the hot path), or `unauthorized`. */
  async identify(apiKey: string): Promise<Principal> {
    if (!apiKey) throw new AppError("unauthorized", "missing x-api-key header");
    const principal = apiKey.length <= MAX_KEY_LENGTH ? await this.organizations.authenticate(apiKey) : null;
    if (!principal) throw new AppError("unauthorized", "invalid or revoked API key");
    return principal;
  }

  /** Counts one request against the key's ceiling; rejects with `rate_limited` past it. */
  charge(principal: Principal): Promise<void> {
    return this.allowances.request(principal.keyId, principal.requestsPerMinute);
  }
}
