/**
 * `vision_analyze {image, question}`: the session's own model answers a question about one image,
 * which is an attachment of the conversation (named by the reference shown with it, or its filename)
 * or an http(s) URL fetched through the outbound guard (the URL comes from the model, so from anyone
 * who can talk to it), bounded in time and size. The image must be of a type the model reads.
 */
import type { Attachment } from "../sessions/domain/events.js";
import type { TokenUsage } from "../providers/domain/model-types.js";
import { askAboutImage } from "../providers/image-question.js";
import type { ProviderRegistry } from "../providers/registry.js";
import { outboundRefusal } from "../outbound/outbound.js";
import { boundedBytes } from "./web.js";

/** The largest image asked about: the Messages API refuses larger ones. */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
const FETCH_TIMEOUT_MS = 15_000;
const MAX_ANSWER_CHARS = 10_000;

export interface VisionOutcome {
  ok: boolean;
  text: string;
  usage?: TokenUsage;
}

export interface VisionRequest {
  image: string;
  question: string;
  /** The session's model: its agent version's `modelName`. */
  modelName: string;
  /** The attachment of the conversation that `name` names, if any. */
  attachment(name: string): Promise<Attachment | undefined>;
  signal: AbortSignal;
}

const fail = (text: string): VisionOutcome => ({ ok: false, text });
const decodedBytes = (dataUrl: string) => Buffer.from(dataUrl.slice(dataUrl.indexOf(",") + 1), "base64").length;

export class VisionTool {
  constructor(
    /** Requests to image URLs: the outbound guard. */
    private readonly images: typeof fetch,
    private readonly providers: Pick<ProviderRegistry, "resolve">,
  ) {}

  async analyze(req: VisionRequest): Promise<VisionOutcome> {
    const { provider, model } = this.providers.resolve(req.modelName);
    const image = /^https?:\/\//i.test(req.image) ? await this.fetched(req.image, req.signal) : await this.attached(req);
    if (typeof image === "string") return fail(image);
    const types = provider.reads.images;
    if (!types.has(image.mediaType)) return fail(`${image.filename} is ${image.mediaType}, not an image type this model reads (${[...types].join(", ")})`);
    if (decodedBytes(image.source.dataUrl) > MAX_IMAGE_BYTES)
      return fail(`${image.filename} is over ${MAX_IMAGE_BYTES} bytes, the largest image the model takes`);
    const answer = await askAboutImage(provider, model, image, req.question, req.signal);
    if (!answer.ok) return { ok: false, text: `the model could not answer: ${answer.error}`, usage: answer.usage };
    const text = answer.text.trim() || "(the model gave no answer)";
    return {
      ok: true,
      text: text.length > MAX_ANSWER_CHARS ? `${text.slice(0, MAX_ANSWER_CHARS)}\n[cut: ${text.length} characters in all]` : text,
      usage: answer.usage,
    };
  }

  private async attached(req: VisionRequest): Promise<Attachment | string> {
    return (
      (await req.attachment(req.image)) ??
      `no attachment of this conversation is named ${JSON.stringify(req.image)}: name one by the reference shown with it (e.g. evt_…/0) or by its filename`
    );
  }

  /** The image at `raw` as an attachment, or why it cannot be had. */
  private async fetched(raw: string, signal: AbortSignal): Promise<Attachment | string> {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return "image is not a valid URL";
    }
    const deadline = AbortSignal.any([signal, AbortSignal.timeout(FETCH_TIMEOUT_MS)]);
    try {
      const res = await this.images(url, { headers: { accept: "image/*" }, signal: deadline });
      if (!res.ok) {
        await res.body?.cancel().catch(() => undefined);
        return `the image URL answered HTTP ${res.status}`;
      }
      const mediaType = (res.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
      if (!mediaType.startsWith("image/")) {
        await res.body?.cancel().catch(() => undefined);
        return `the URL is not an image (content type ${mediaType || "none"})`;
      }
      const body = await boundedBytes(res, MAX_IMAGE_BYTES + 1, deadline);
      if (deadline.aborted) throw deadline.reason;
      if (body.truncated) return `the image is over ${MAX_IMAGE_BYTES} bytes, the largest the model takes`;
      const filename = (url.pathname.split("/").pop() || url.hostname).slice(0, 255);
      return {
        type: "file",
        filename,
        mediaType: mediaType as Attachment["mediaType"],
        source: { type: "data_url", dataUrl: `data:${mediaType};base64,${body.bytes.toString("base64")}` },
      };
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      const refused = outboundRefusal(err);
      if (refused) return refused.message;
      return err instanceof Error && err.name === "TimeoutError" ? "the image URL did not answer in time" : "the image could not be fetched";
    }
  }
}
