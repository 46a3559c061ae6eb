/**
 * SecretValue: a token or client secret. Visible ASCII only: it is sent in an HTTP header, where a
 * space, control character or line break could change the request.
 */
export const secretValueSchema = {
  $id: "secret-value",
  title: "SecretValue",
  description: "Visible ASCII characters, no spaces; never returned.",
  type: "string",
  minLength: 1,
  maxLength: 8192,
  pattern: "^[\\x21-\\x7E]+$",
  writeOnly: true,
} as const;
