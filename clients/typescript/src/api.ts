/** The `openapi-fetch` client over the document's paths, which every resource method calls. */
import type { Client } from "openapi-fetch";
import type { paths } from "./generated/openapi.js";

export type Api = Client<paths>;
