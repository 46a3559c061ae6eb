/** SecretUpdate: a new `value` (a rotation: deployments naming the secret get it from their next tool process on) and/or a new `name`. */
import { SECRET_NAME_FIELD, SECRET_VALUE_FIELD } from "./secret-create.js";

export const secretUpdateSchema = {
  $id: "secret-update",
  title: "SecretUpdate",
  type: "object",
  minProperties: 1,
  additionalProperties: false,
  properties: { name: SECRET_NAME_FIELD, value: SECRET_VALUE_FIELD },
} as const;
