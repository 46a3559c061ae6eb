/** A question about one image, answered by a model with image input and no tools (what vision_analyze asks). */
import type { Attachment } from "../sessions/domain/events.js";
import type { ModelProvider, ModelResult } from "./provider.js";

export const IMAGE_QUESTION_SYSTEM =
  "You are shown one image. Answer the question about it accurately and concisely; say so when the image does not show what is asked.";

const ignore = async () => undefined;

/** One user message, the image then the question; the answer is not streamed anywhere. */
export function askAboutImage(provider: ModelProvider, model: string, image: Attachment, question: string, signal: AbortSignal): Promise<ModelResult> {
  return provider.call(
    {
      model,
      system: IMAGE_QUESTION_SYSTEM,
      messages: [
        {
          role: "user",
          content: [
            { type: "attachment", attachment: image },
            { type: "text", text: question },
          ],
        },
      ],
      tools: [],
      steers: [],
      signal,
    },
    { onTextDelta: ignore, onThinking: ignore },
  );
}
