/**
 * A deployment's skills as the caller declares them (inline, a public URL, a file uploaded to the
 * deployment), resolved to the Markdown the agent runs with. Every skill must parse as a skill file
 * (YAML front matter with its name and a description); one that cannot be fetched, read or parsed is
 * `422 invalid_skill`, naming the skill and why, never the content.
 */
import type { DeploymentSkill } from "./domain/deployments.js";
import { SKILL_CONTENT_MAX } from "../agent-tools/domain/skills.js";
import { AppError } from "../errors.js";
import { checkSkillMd } from "../agent-tools/skill-md.js";
import { outboundRefusal, type Fetch } from "../outbound/outbound.js";
import { boundedBytes } from "../agent-tools/web.js";

export type SkillDeclaration =
  { name: string; source: "inline"; content: string } | { name: string; source: "url"; url: string } | { name: string; source: "file"; path: string };

/** Files uploaded to a deployment; null when the file is not there. */
export interface SkillFiles {
  read(deploymentId: string, path: string, maxBytes: number): Promise<string | null>;
}

const FETCH_TIMEOUT_MS = 10_000;

const invalid = (index: number, name: string, why: string, cause?: unknown) => new AppError("invalid_skill", `skills[${index}] (${name}): ${why}`, {}, cause);

export class SkillSources {
  constructor(
    private readonly fetch: Fetch,
    private readonly files: SkillFiles,
  ) {}

  /** `deploymentId`: null while the deployment is being created (it has no uploaded files yet). */
  async resolve(deploymentId: string | null, declared: readonly SkillDeclaration[]): Promise<DeploymentSkill[]> {
    return Promise.all(
      declared.map(async (skill, i) => {
        const content = await this.contentOf(deploymentId, skill, i);
        const check = checkSkillMd(skill.name, content);
        if (!check.ok) throw invalid(i, skill.name, `cannot be parsed: ${check.problem}`);
        return { ...skill, content } as DeploymentSkill;
      }),
    );
  }

  private async contentOf(deploymentId: string | null, skill: SkillDeclaration, i: number): Promise<string> {
    switch (skill.source) {
      case "inline":
        return skill.content;
      case "file": {
        const text = deploymentId ? await this.files.read(deploymentId, skill.path, SKILL_CONTENT_MAX * 4) : null;
        if (text === null) {
          throw invalid(
            i,
            skill.name,
            `the file ${skill.path} has not been uploaded to this deployment (PUT /v1/deployments/{deployment_id}/files/${skill.path}, then add the skill with an update)`,
          );
        }
        return this.bounded(text, i, skill.name);
      }
      case "url":
        return this.bounded(await this.download(skill.url, i, skill.name), i, skill.name);
    }
  }

  private bounded(text: string, i: number, name: string): string {
    if (text.length > SKILL_CONTENT_MAX) throw invalid(i, name, `must be at most ${SKILL_CONTENT_MAX} characters`);
    return text;
  }

  private async download(url: string, i: number, name: string): Promise<string> {
    let res: Response;
    const signal = AbortSignal.timeout(FETCH_TIMEOUT_MS);
    try {
      res = await this.fetch(url, { signal, headers: { accept: "text/markdown, text/plain;q=0.9, */*;q=0.1" } });
    } catch (err) {
      const refused = outboundRefusal(err);
      throw invalid(i, name, refused ? `cannot be fetched: ${refused.message}` : "cannot be fetched: the address did not answer", err);
    }
    if (!res.ok) {
      await res.body?.cancel();
      throw invalid(i, name, `cannot be fetched: the address answered HTTP ${res.status}`);
    }
    const { bytes, truncated } = await boundedBytes(res, SKILL_CONTENT_MAX * 4, signal);
    if (signal.aborted) throw invalid(i, name, "cannot be fetched: the address did not answer in time");
    if (truncated) throw invalid(i, name, `must be at most ${SKILL_CONTENT_MAX} characters`);
    const text = new TextDecoder("utf-8", { fatal: true });
    try {
      return text.decode(bytes);
    } catch (err) {
      throw invalid(i, name, "cannot be parsed: the file is not UTF-8 text", err);
    }
  }
}
