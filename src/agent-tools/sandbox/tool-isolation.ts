/**
 * What a worker gives its tools' processes, decided once at its start and said in its log: namespaces
 * and the egress proxy when the machine can make them (`isolation.ts`, `egress-proxy.ts`); otherwise no
 * isolation, under which the agent's commands (terminal, process, execute_code) are refused unless the
 * operator allowed them with SANDBOX_UNISOLATED=allow. There is no silent downgrade.
 */
import type { Logger } from "../../log.js";
import { EgressProxy } from "./egress-proxy.js";
import { isolationProblem } from "./isolation-probe.js";
import type { OutboundPolicy } from "../../outbound/outbound-policy.js";
import { SessionNetworks } from "./session-networks.js";

/** Why a worker's tools run without isolation, and whether the operator lets the agent's commands run so (SANDBOX_UNISOLATED=allow). */
export interface Unisolated {
  problem: string;
  allowed: boolean;
}

/** The tool result of an agent's command refused because it would run without isolation. */
export function unisolatedRefusal(u: Unisolated): string {
  return `this worker cannot isolate tool processes (${u.problem}), so it runs no command; an operator can allow commands without isolation with SANDBOX_UNISOLATED=allow`;
}

/** Said at the end of every result of an agent's command that ran without isolation. */
export function unisolatedNote(u: Unisolated): string {
  return `[ran without isolation: ${u.problem}; SANDBOX_UNISOLATED=allow]`;
}

export interface ToolIsolation {
  /** Each session's network, when tool processes are isolated. */
  networks: SessionNetworks | null;
  /** Set when they are not. */
  unisolated: Unisolated | null;
  close(): Promise<void>;
}

/** The uid the start's trial network is made for (its bridge's is that plus the offset). */
const TRIAL_UID = 65534;

/** Why a session network cannot be made here (its bridge tried once), or null when it can. */
async function networkProblem(networks: SessionNetworks): Promise<string | null> {
  try {
    (await networks.lease("start-trial", { uid: TRIAL_UID, gid: TRIAL_UID })).release();
    return null;
  } catch (err) {
    return `a session's network could not be made here: ${(err as Error).message}`;
  } finally {
    networks.end("start-trial");
  }
}

export async function startToolIsolation(policy: OutboundPolicy, allowUnisolated: boolean, logger: Logger): Promise<ToolIsolation> {
  let problem = isolationProblem();
  if (problem === null) {
    const proxy = await EgressProxy.start(policy, logger);
    const networks = new SessionNetworks(proxy.socket, logger);
    problem = await networkProblem(networks);
    const close = async () => {
      networks.close();
      await proxy.close();
    };
    if (problem === null) {
      logger.info("tool processes run isolated: namespaces of their own, each session's network out through the egress proxy", { egress: proxy.socket });
      return { networks, unisolated: null, close };
    }
    await close();
  }
  if (allowUnisolated)
    logger.warn("tool processes run WITHOUT isolation (SANDBOX_UNISOLATED=allow): an agent's commands reach what this worker reaches", { problem });
  else
    logger.warn(
      "the agent's commands (terminal, process, execute_code) are refused: this worker cannot isolate them; SANDBOX_UNISOLATED=allow runs them without isolation",
      { problem },
    );
  return { networks: null, unisolated: { problem, allowed: allowUnisolated }, close: async () => undefined };
}
