/** The provider-neutral shape of a conversation with a model: what the turn engine rebuilds from the log and every provider translates. */
import type { Attachment } from "../../sessions/domain/events.js";

/** What a message holds, in the provider-neutral form the turn engine rebuilds from the log. */
export type ModelBlock =
  | { type: "text"; text: string }
  /** The model's reasoning, with the provider's signature that lets it be sent back (unsigned ones never are). */
  | { type: "thinking"; thinking: string; signature: string }
  /** `ref` (`<event id>/<index>`) is how the model names the attachment (vision_analyze takes it); none for a one-off image question. */
  | { type: "attachment"; attachment: Attachment; ref?: string }
  | { type: "tool_use"; id: string; name: string; input: unknown }
  | { type: "tool_result"; tool_use_id: string; content: string; is_error: boolean };

export interface ModelMessage {
  role: "user" | "assistant";
  content: ModelBlock[];
}

/** A tool the model may call, as the model sees it. */
export interface ToolSpec {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
}

export interface TokenUsage {
  input: number;
  output: number;
  cache_read: number;
  cache_write: number;
  reasoning: number;
}

export interface ToolUse {
  id: string;
  name: string;
  input: unknown;
}
