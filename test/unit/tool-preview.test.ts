/** The one-line preview of built-in tool uses. */
import { expect } from "chai";
import { toolPreview } from "../../src/agent-tools/domain/tool-preview.js";

describe("tool previews", () => {
  it("says what a call does in one line", () => {
    expect(toolPreview("terminal", { command: "ls -la" })).to.equal("$ ls -la");
    expect(toolPreview("terminal", { command: "npm run dev", background: true })).to.equal("$ npm run dev (background)");
    expect(toolPreview("write_file", { path: "a/b.txt", content: "héllo" })).to.equal("write a/b.txt (6 bytes)");
    expect(toolPreview("web_extract", { urls: ["https://a.example/", "https://b.example/"] })).to.equal("read https://a.example/, https://b.example/");
    expect(toolPreview("search_files", { pattern: "*.py", target: "files" })).to.equal("search file names for *.py");
    expect(toolPreview("process", { action: "kill", id: "proc_1" })).to.equal("kill proc_1");
  });

  it("keeps the first line and bounds the length", () => {
    expect(toolPreview("execute_code", { language: "python", code: "\nimport os\nprint(os.getcwd())" })).to.equal("python: import os …");
    expect(toolPreview("terminal", { command: "echo one\necho two" })).to.equal("$ echo one …");
    const long = toolPreview("terminal", { command: "x".repeat(500) })!;
    expect(long).to.have.length(200);
    expect(long.endsWith("…")).to.equal(true);
  });

  it("has none for tools without such a line, or a malformed input", () => {
    expect(toolPreview("todo", { items: [] })).to.equal(undefined);
    expect(toolPreview("memory", { action: "list" })).to.equal(undefined);
    expect(toolPreview("terminal", "ls")).to.equal(undefined);
    expect(toolPreview("lookup", { order: 1 })).to.equal(undefined);
  });
});
