/** The deployments interface in tests: Bearer clients with chosen scopes, a create body, and waiting for a status. */
import type { KeyScope } from "../../src/accounts/store/organizations.js";
import { client, type Client, type TestServer } from "./server.js";
import { until, userMessage } from "./sessions.js";

export const BOTH: KeyScope[] = ["deployments:read", "deployments:write"];

/** Credits granted to each organization a test makes (USD 100, in micro-dollars). */
export const TEST_CREDITS = 100_000_000;

let orgs = 0;

/**
 * A Bearer client of the deployments interface for a new organization (or `org`), with `scopes`; the
 * organization is granted `credits` (none with 0: an account without credits).
 */
export async function deploymentsClient(
  server: TestServer,
  scopes: KeyScope[] = BOTH,
  org?: string,
  credits = TEST_CREDITS,
): Promise<{ api: Client; key: string; orgId: string }> {
  const name = org ?? `org-dep-${process.pid}-${Date.now()}-${++orgs}`;
  const orgId = await server.core.stores.organizations.ensureOrganization(name);
  if (credits > 0) await server.core.inner.credits.grant(orgId, credits, `test-grant-${name}`);
  const key = await server.newKey(name, scopes);
  return { api: client(server.deploymentsUrl, key, "bearer"), key, orgId };
}

export function deploymentBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { customer_id: "cus_1", name: "Acme assistant", model: "mock/echo", system_prompt: "You help Acme.", ...overrides };
}

/** Polls the deployment until its status is no longer `provisioning`; answers it. */
export async function settled(api: Client, id: string, timeoutMs = 15_000): Promise<any> {
  const res = await until(
    () => api.get(`/v1/deployments/${id}`),
    (r) => r.status !== 200 || r.body.status !== "provisioning",
    timeoutMs,
    `deployment ${id} to leave provisioning`,
  );
  return res.body;
}

/** Creates a deployment and waits until it is ready. */
export async function readyDeployment(api: Client, overrides: Record<string, unknown> = {}): Promise<any> {
  const created = await api.post("/v1/deployments", deploymentBody(overrides));
  if (created.status !== 201) throw new Error(`create answered ${created.status}: ${JSON.stringify(created.body)}`);
  const d = await settled(api, created.body.deployment_id);
  if (d.status !== "ready") throw new Error(`deployment ended ${d.status}: ${d.status_reason}`);
  return d;
}

/** Runs a tool in a thread of the deployment (steering off) through the mock model; answers its result text. */
export async function runTool(api: Client, d: { deployment_id: string }, thread: string, name: string, input: unknown): Promise<string> {
  const path = `/v1/deployments/${d.deployment_id}/threads/${thread}/events`;
  const before = (await api.get(`${path}?limit=100`)).body.data.filter((e: any) => e.type === "session.status_idle").length;
  await api.post(path, { events: [userMessage(`/tool ${name} ${JSON.stringify(input)}`)] });
  const events = await until(
    async () => (await api.get(`${path}?limit=100`)).body.data,
    (e: any[]) => e.filter((x) => x.type === "session.status_idle").length > before,
    15_000,
    "the tool's turn",
  );
  return events.filter((e: any) => e.type === "agent.tool_result").at(-1).payload.content[0].text;
}

/** The current version of the deployment's agent, as the core interface shows it to a key of the same account. */
export async function deploymentAgent(core: Client, deploymentId: string): Promise<any> {
  const agents = (await core.get("/v1/agents?limit=100")).body.data as any[];
  const agent = agents.find((a) => a.metadata?.deploymentId === deploymentId);
  if (!agent) throw new Error(`no agent of deployment ${deploymentId}`);
  return (await core.get(`/v1/agents/${agent.id}`)).body.version;
}
