/**
 * Deployments made straight in the stores (their record and their agent, as provisioning makes them),
 * for tests of the worker side that need neither the deployments interface nor its provisioning: the
 * sessions on the agent are the deployment's threads, driven through the core interface.
 */
import { configFromCreateBody, rateLimitsFrom } from "../../src/agents/domain/agent-config.js";
import { DEFAULT_FEATURES, DEFAULT_SANDBOX, type DeploymentSandbox } from "../../src/deployments/domain/deployments.js";
import { newId } from "../../src/ids.js";
import type { DeploymentDoc, DeploymentStore } from "../../src/deployments/store/deployments.js";
import type { TestServer } from "./server.js";
import { agentBody } from "./server.js";

export interface TestDeployment {
  doc: DeploymentDoc;
  store: DeploymentStore;
  /** Removes the record as a finished teardown does. */
  remove(): Promise<void>;
}

/** A ready deployment of `orgId` with `secrets` (variable → `sec_…`) and an agent whose built-in tools run without asking. */
export async function insertDeployment(
  server: TestServer,
  orgId: string,
  opts: { secrets?: Record<string, string>; sandbox?: Partial<DeploymentSandbox> } = {},
): Promise<TestDeployment> {
  const store = server.deployments.store;
  const now = new Date();
  const id = newId("dep");
  const doc: DeploymentDoc = {
    _id: id,
    orgId,
    customerId: `cus_${id}`,
    runtime: "native",
    sandbox: { ...DEFAULT_SANDBOX, ...opts.sandbox },
    settings: {
      name: "Placement test",
      model: "mock/echo",
      systemPrompt: "You help.",
      mcpServers: [],
      skills: [],
      secrets: opts.secrets ?? {},
      features: DEFAULT_FEATURES,
    },
    status: "ready",
    statusReason: null,
    transitions: [{ status: "ready", at: now, reason: null }],
    agentId: newId("agt"),
    threadId: newId("ses"),
    revision: 1,
    leaseUntil: null,
    leaseOwner: null,
    deleting: null,
    createdAt: now,
    updatedAt: now,
  };
  await store.insert(doc);
  const tools = [{ type: "agent_toolset", defaultConfig: { enabled: true, permissionPolicy: { type: "always_allow" } } }];
  const config = configFromCreateBody(agentBody({ tools }) as Parameters<typeof configFromCreateBody>[0]);
  await server.core.stores.agents.create(orgId, config, rateLimitsFrom(undefined), { id: doc.agentId, deploymentId: id, revision: 1 });
  const remove = async () => void (await server.core.connections.mongo.db.collection<DeploymentDoc>("deployments").deleteOne({ _id: id }));
  return { doc, store, remove };
}
