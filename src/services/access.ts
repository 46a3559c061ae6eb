/** Who is calling: an `x-api-key` resolved to its organization, then counted against the key's request ceiling. */
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

  async authenticate(apiKey: string): Promise<Principal> {
    if (!apiKey) throw new AppError("unauthorized", "missing x-api-key header");
    const principal = apiKey.length <= MAX_KEY_LENGTH ? await this.organizations.authenticate(apiKey) : null;
    if (!principal) throw new AppError("unauthorized", "invalid or revoked API key");
    await this.allowances.request(principal.keyId, principal.requestsPerMinute);
    return principal;
  }
}
