/**
 * An estimate of the memory a transcript's messages take, for the bound of the workers' transcript
 * cache: two bytes a character of their strings (attachments' data URLs counted as they are) plus a
 * fixed cost per object. An estimate, kept as the messages are made, not a measurement. Pure.
 */
import type { ModelBlock, ModelMessage } from "../../providers/domain/model-types.js";

const PER_OBJECT = 64;

function blockBytes(b: ModelBlock): number {
  switch (b.type) {
    case "text":
      return PER_OBJECT + 2 * b.text.length;
    case "thinking":
      return PER_OBJECT + 2 * (b.thinking.length + b.signature.length);
    case "attachment":
      return 2 * PER_OBJECT + 2 * (b.attachment.filename.length + b.attachment.source.dataUrl.length);
    case "tool_use":
      return PER_OBJECT + 2 * (b.id.length + b.name.length + (JSON.stringify(b.input) ?? "").length);
    case "tool_result":
      return PER_OBJECT + 2 * (b.tool_use_id.length + b.content.length);
  }
}

export function messageBytes(m: ModelMessage): number {
  return PER_OBJECT + m.content.reduce((n, b) => n + blockBytes(b), 0);
}
