import { expect } from "chai";
import { ConfigError, loadConfig } from "../../src/config.js";
import { modelProviders } from "../../src/config-endpoints.js";

const refused = (env: Record<string, string>, message: string) => expect(() => loadConfig(env)).to.throw(ConfigError, message);

describe("the OpenAI-compatible endpoints of the configuration", () => {
  it("openai always; named endpoints from MODEL_ENDPOINTS, their keys read from the variables they name", () => {
    const config = loadConfig({
      OPENAI_API_KEY: "sk-a",
      MODEL_ENDPOINTS: JSON.stringify({
        local: { baseUrl: "http://127.0.0.1:11434/v1", apiKeyEnv: "LOCAL_KEY", contextWindow: 32_768 },
        open: { baseUrl: "https://x.example/v1" },
      }),
      LOCAL_KEY: "sk-local",
      DEPLOYMENTS_DEFAULT_MODEL: "local/qwen3",
    });
    expect(config.modelEndpoints).to.deep.equal([
      { name: "openai", baseUrl: undefined, apiKey: "sk-a", apiKeyEnv: "OPENAI_API_KEY", contextWindow: undefined },
      { name: "local", baseUrl: "http://127.0.0.1:11434/v1", apiKey: "sk-local", apiKeyEnv: "LOCAL_KEY", contextWindow: 32_768 },
      { name: "open", baseUrl: "https://x.example/v1", apiKey: undefined, apiKeyEnv: undefined, contextWindow: undefined },
    ]);
    expect(modelProviders(config.modelEndpoints)).to.deep.equal(["anthropic", "mock", "openai", "local", "open"]);
    expect(loadConfig({}).modelEndpoints.map((e) => e.name)).to.deep.equal(["openai"]);
  });

  it("refuses a bad MODEL_ENDPOINTS with a message naming the entry, never a value", () => {
    refused({ MODEL_ENDPOINTS: "{local:" }, "MODEL_ENDPOINTS must be a JSON object of endpoints by name");
    refused({ MODEL_ENDPOINTS: "[]" }, "MODEL_ENDPOINTS must be a JSON object of endpoints by name");
    refused({ MODEL_ENDPOINTS: '{"Local":{"baseUrl":"http://a"}}' }, "MODEL_ENDPOINTS: each name must be 1-32 lowercase letters");
    refused({ MODEL_ENDPOINTS: '{"anthropic":{"baseUrl":"http://a"}}' }, "MODEL_ENDPOINTS: anthropic is a built-in provider");
    refused({ MODEL_ENDPOINTS: '{"local":{}}' }, "MODEL_ENDPOINTS.local.baseUrl must be an http(s) URL");
    refused({ MODEL_ENDPOINTS: '{"local":{"baseUrl":"ftp://a"}}' }, "MODEL_ENDPOINTS.local.baseUrl must be an http(s) URL");
    refused({ MODEL_ENDPOINTS: '{"local":{"baseUrl":"http://a","apiKey":"sk-secret"}}' }, "MODEL_ENDPOINTS.local has unknown properties");
    refused(
      { MODEL_ENDPOINTS: '{"local":{"baseUrl":"http://a","apiKeyEnv":"LOCAL_KEY"}}' },
      "MODEL_ENDPOINTS.local.apiKeyEnv names LOCAL_KEY, which is not set",
    );
    refused(
      { MODEL_ENDPOINTS: '{"local":{"baseUrl":"http://a","apiKeyEnv":"sk-1"}}' },
      "MODEL_ENDPOINTS.local.apiKeyEnv must be the name of an environment variable",
    );
    refused(
      { MODEL_ENDPOINTS: '{"local":{"baseUrl":"http://a","contextWindow":10}}' },
      "MODEL_ENDPOINTS.local.contextWindow must be an integer between 1024 and 10000000",
    );
    refused({ OPENAI_BASE_URL: "nope" }, "OPENAI_BASE_URL must be an http(s) URL");
    refused({ DEPLOYMENTS_DEFAULT_MODEL: "local/qwen3" }, "DEPLOYMENTS_DEFAULT_MODEL's provider must be one of: anthropic, mock, openai");
    expect(() => loadConfig({ MODEL_ENDPOINTS: '{"local":{"baseUrl":"http://a","apiKey":"sk-secret"}}' }))
      .to.throw(ConfigError)
      .with.property("message")
      .that.does.not.include("sk-secret");
  });
});
