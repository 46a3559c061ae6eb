import { expect } from "chai";
import type { ToolConfig } from "../../src/agents/domain/agent-config.js";
import { decide, resolveTool, wouldAsk } from "../../src/worker/domain/tool-permissions.js";

const tools: ToolConfig[] = [
  {
    type: "agent_toolset",
    defaultConfig: { enabled: true, permissionPolicy: { type: "always_ask" } },
    configs: [
      { name: "memory", permissionPolicy: { type: "always_deny" } },
      { name: "todo", permissionPolicy: { type: "always_allow" } },
      { name: "terminal", enabled: false },
    ],
  },
];
const none = new Set<string>();

/** The worker reads yoloMode and `always` grants from MongoDB only for calls `wouldAsk` names. */
describe("tool permissions: which calls need yoloMode and grants read (pure)", () => {
  it("an always_ask tool would ask, unless the session granted it", () => {
    expect(wouldAsk(tools, "read_file", none)).to.equal(true);
    expect(wouldAsk(tools, "read_file", new Set(["read_file"]))).to.equal(false);
  });

  it("allowed, denied, disabled and unknown tools, and clarify, never ask", () => {
    for (const name of ["todo", "memory", "terminal", "no_such_tool", "clarify"]) expect(wouldAsk(tools, name, none), name).to.equal(false);
  });

  it("for a call that would not ask, yoloMode and always grants change nothing", () => {
    for (const name of ["todo", "memory", "terminal", "no_such_tool", "clarify"]) {
      const resolved = resolveTool(tools, name);
      expect(decide(resolved, name, true, { session: none, always: new Set([name]) }), name).to.deep.equal(
        decide(resolved, name, false, { session: none, always: none }),
      );
    }
  });
});
