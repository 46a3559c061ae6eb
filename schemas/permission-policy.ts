/** PermissionPolicy */
export const permissionPolicySchema = {
  $id: "permission-policy",
  title: "PermissionPolicy",
  type: "object",
  required: ["type"],
  additionalProperties: false,
  properties: { type: { enum: ["always_allow", "always_ask", "always_deny"] } },
} as const;
