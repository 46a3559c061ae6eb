import { expect } from "chai";
import { lstat, mkdir, mkdtemp, readFile, readlink, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { scanWorkspace, writeWorkspaceFile } from "../../src/deployments/workspace-files.js";

describe("uploads into a deployment's workspace (the service's own user)", () => {
  let workspace: string;
  beforeEach(async () => {
    workspace = await mkdtemp(join(tmpdir(), "upload-"));
  });
  afterEach(() => rm(workspace, { recursive: true, force: true }));

  it("a reader sees the old file or the new one, never one half written, and no partial is left", async () => {
    const small = Buffer.alloc(10, "a");
    const large = Buffer.alloc(4 * 1024 * 1024, "b");
    await writeWorkspaceFile(workspace, "data/big.bin", small);
    const sizes = new Set<number>();
    let writing = true;
    const reads = (async () => {
      while (writing) {
        for (const [path, size] of (await scanWorkspace(workspace, 100)).files) {
          expect(path).to.equal("data/big.bin");
          sizes.add(size);
        }
        sizes.add((await stat(join(workspace, "data/big.bin"))).size);
      }
    })();
    for (let i = 0; i < 20; i++) expect(await writeWorkspaceFile(workspace, "data/big.bin", i % 2 ? small : large)).to.equal(true);
    writing = false;
    await reads;
    expect(
      [...sizes].every((s) => s === small.length || s === large.length),
      `sizes seen: ${[...sizes].join(", ")}`,
    ).to.equal(true);
    expect((await scanWorkspace(workspace, 100)).files.map(([p]) => p)).to.deep.equal(["data/big.bin"]);
  });

  it("replaces a link at the path instead of writing through it; refuses a directory and a link on the way", async () => {
    const outside = await mkdtemp(join(tmpdir(), "outside-"));
    try {
      await writeFile(join(outside, "target"), "untouched");
      await symlink(join(outside, "target"), join(workspace, "link"));
      expect(await writeWorkspaceFile(workspace, "link", Buffer.from("mine"))).to.equal(true);
      expect((await lstat(join(workspace, "link"))).isFile()).to.equal(true);
      expect(await readFile(join(outside, "target"), "utf8")).to.equal("untouched");

      await mkdir(join(workspace, "dir"));
      expect(await writeWorkspaceFile(workspace, "dir", Buffer.from("x"))).to.equal(false);
      await symlink(outside, join(workspace, "via"));
      expect(await writeWorkspaceFile(workspace, "via/file", Buffer.from("x"))).to.equal(false);
      expect(await readlink(join(workspace, "via"))).to.equal(outside);
      expect((await scanWorkspace(workspace, 100)).files.map(([p]) => p).sort()).to.deep.equal(["link", "via"]);
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });
});
