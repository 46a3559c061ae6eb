/** DeploymentCredits: the account's credit balance (what creating, updating and every turn need). */
export const deploymentCreditsSchema = {
  $id: "deployment-credits",
  title: "DeploymentCredits",
  type: "object",
  required: ["metered", "balance_usd"],
  additionalProperties: false,
  properties: {
    metered: { type: "boolean", description: "Whether the account has a credit account (an operator's first grant makes it)." },
    balance_usd: { type: "string", pattern: "^-?[0-9]+\\.[0-9]{6}$", description: "The balance in USD, 6 decimals, as a string (no rounding on the way)." },
  },
} as const;
