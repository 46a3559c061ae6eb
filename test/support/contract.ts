/**
 * The served OpenAPI document as a contract: every response the test client receives, and every SSE
 * frame, is checked against it. A status an operation does not declare, or a body its schema refuses,
 * fails the test that received it, so the document cannot drift from the code.
 */
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsImport from "ajv-formats";

const addFormats = addFormatsImport as unknown as (ajv: Ajv2020) => Ajv2020;

interface Operation {
  template: string;
  pattern: RegExp;
  methods: Record<string, { responses: Record<string, { content?: Record<string, { schema?: unknown }> }> }>;
}

const DOC_ID = "contract:openapi";
/** The console's files, and the root, which redirects to them. */
const CONSOLE_PATH = /^\/(console(\/|$)|$)/;

class Contract {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly operations: Operation[];
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(doc: { paths: Record<string, Operation["methods"]> }) {
    addFormats(this.ajv);
    this.ajv.addSchema(doc, DOC_ID);
    this.operations = Object.entries(doc.paths).map(([template, methods]) => ({
      template,
      pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, "[^/]+")}$`),
      methods,
    }));
  }

  private validator(pointer: string): ValidateFunction {
    let fn = this.validators.get(pointer);
    if (!fn) {
      fn = this.ajv.compile({ $ref: `${DOC_ID}#${pointer}` });
      this.validators.set(pointer, fn);
    }
    return fn;
  }

  private validate(pointer: string, value: unknown, what: string): string | null {
    const fn = this.validator(pointer);
    return fn(value) ? null : `${what} breaks its schema: ${this.ajv.errorsText(fn.errors)}; body: ${JSON.stringify(value).slice(0, 500)}`;
  }

  /** What is wrong with a response, or null. */
  problem(method: string, path: string, status: number, contentType: string, body: unknown): string | null {
    const m = method.toLowerCase();
    const op = this.operations.find((o) => o.pattern.test(path));
    const at = `${method} ${path} → ${status}`;
    // The web console's static files and the root's redirect (src/http/console.ts) are not API operations: the document must not name them.
    if (CONSOLE_PATH.test(path)) return op ? `${at}: the console's path is in the document as ${op.template}` : null;
    // Unknown routes and methods answer in the error shape too.
    if (!op || !op.methods[m]) return this.validate("/components/schemas/error", body, `${at} (no such operation)`);
    const declared = op.methods[m]!.responses[String(status)];
    if (!declared) return `${at}: status ${status} is not declared for ${method} ${op.template}`;
    if (!declared.content) return null;
    if (contentType.startsWith("text/event-stream")) return declared.content["text/event-stream"] ? null : `${at}: an event stream is not declared`;
    if (!declared.content["application/json"]) return `${at}: a JSON body is not declared`;
    const pointer = `/paths/${op.template.replace(/~/g, "~0").replace(/\//g, "~1")}/${m}/responses/${status}/content/application~1json/schema`;
    return this.validate(pointer, body, at);
  }

  frameProblem(frame: unknown): string | null {
    return this.validate("/components/schemas/event", frame, "an SSE frame");
  }
}

const contracts = new Map<string, Promise<Contract>>();

/** The contract of the service at `baseUrl`, read once from its `/v1/openapi.json`. */
export function contractOf(baseUrl: string): Promise<Contract> {
  let found = contracts.get(baseUrl);
  if (!found) {
    found = fetch(`${baseUrl}/v1/openapi.json`).then(async (res) => new Contract((await res.json()) as never));
    contracts.set(baseUrl, found);
    found.catch(() => contracts.delete(baseUrl));
  }
  return found;
}

/** Forgets the contract read from `baseUrl`: a port the OS hands out again may serve another document. */
export function forgetContract(baseUrl: string): void {
  contracts.delete(baseUrl);
}

/**
 * Throws when a response breaks the served document. A problem is checked again against the document
 * read anew: a port a closed server (a killed child process's, say) had is handed out again, and the
 * document read from it then was another service's.
 */
export async function checkResponse(baseUrl: string, method: string, path: string, res: { status: number; headers: Headers }, body: unknown): Promise<void> {
  const check = async () => (await contractOf(baseUrl)).problem(method, path.split("?")[0]!, res.status, res.headers.get("content-type") ?? "", body);
  if ((await check()) === null) return;
  forgetContract(baseUrl);
  const problem = await check();
  if (problem) throw new Error(`contract: ${problem}`);
}

/** Throws when an SSE frame's data is not an Event. */
export async function checkFrame(baseUrl: string, frame: unknown): Promise<void> {
  const problem = (await contractOf(baseUrl)).frameProblem(frame);
  if (problem) throw new Error(`contract: ${problem}`);
}
