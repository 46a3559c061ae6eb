/** UserInterrupt: Interrupts the active turn. */
export const userInterruptSchema = {
  $id: "user-interrupt",
  title: "UserInterrupt",
  type: "object",
  required: ["type"],
  additionalProperties: false,
  properties: { type: { const: "user.interrupt" }, message: { type: "string", maxLength: 20000 } },
} as const;
