/** The docker backend's settings and what an environment file can carry: each is one argument or line of the client's. */
import { expect } from "chai";
import { ConfigError, loadConfig } from "../../src/config.js";
import { DockerEngine } from "../../src/agent-tools/sandbox/docker.js";

describe("docker backend settings", () => {
  it("defaults: look for an engine, debian:bookworm-slim on the bridge network, one CPU", () => {
    expect(loadConfig({}).docker).to.deep.equal({ enabled: true, host: undefined, image: "debian:bookworm-slim", network: "bridge", cpus: 1 });
    expect(
      loadConfig({
        DEPLOYMENT_DOCKER: "off",
        DOCKER_HOST: "unix:///run/d.sock",
        DEPLOYMENT_DOCKER_IMAGE: "registry.example:5000/team/img@sha256:ab",
        DEPLOYMENT_DOCKER_NETWORK: "none",
        DEPLOYMENT_DOCKER_CPUS: "4",
      }).docker,
    ).to.deep.equal({ enabled: false, host: "unix:///run/d.sock", image: "registry.example:5000/team/img@sha256:ab", network: "none", cpus: 4 });
  });

  it("refuses a value that would be read as an option, or is not what it names", () => {
    for (const [name, value] of [
      ["DEPLOYMENT_DOCKER_IMAGE", "--privileged"],
      ["DEPLOYMENT_DOCKER_IMAGE", "img with space"],
      ["DEPLOYMENT_DOCKER_NETWORK", "-host"],
      ["DOCKER_HOST", "/var/run/docker.sock"],
      ["DEPLOYMENT_DOCKER", "on"],
      ["DEPLOYMENT_DOCKER_CPUS", "0"],
    ]) {
      expect(() => loadConfig({ [name!]: value }), `${name}=${value}`).to.throw(ConfigError, name);
    }
  });

  it("a value with a line break cannot be a variable of a container, and the refusal names it without its value", () => {
    expect(DockerEngine.unfit({ A: "x y 'z'", B: "" })).to.equal(null);
    for (const value of ["one\ntwo", "one\rtwo", "one\0two"]) {
      const problem = DockerEngine.unfit({ OK: "fine", PEM: value });
      expect(problem).to.include("PEM").and.not.include("two");
    }
  });
});
