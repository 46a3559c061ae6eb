/** Agent bodies the agents tests send and expect back: the built-in toolset entry and a custom tool. */

export const BUILTIN_TOOLSET = {
  type: "agent_toolset",
  defaultConfig: { enabled: true, permissionPolicy: { type: "always_ask" } },
  configs: [],
};

export const weather = {
  type: "custom_tool",
  name: "get_weather",
  description: "Weather for a city",
  input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
};
