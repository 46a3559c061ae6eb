/** UserSteer: Guidance for the current session, given to the next model call. */
export const userSteerSchema = {
  $id: "user-steer",
  title: "UserSteer",
  type: "object",
  required: ["type", "message"],
  additionalProperties: false,
  properties: { type: { const: "user.steer" }, message: { type: "string", minLength: 1, maxLength: 20000 } },
} as const;
