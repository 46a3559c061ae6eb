/**
 * What a model call is given from the log: the transcript and the steers no call has answered yet.
 * The session's cached fold is caught up with the events after the sequence it covers; with none (a
 * worker that has not run the session, or evicted it) the whole log is folded, page by page, so the
 * raw events never stay in memory. Before each page is folded, the events the fold holds are read
 * again through the overlay (after the page itself, so the overlay is at least as new as the page),
 * which brings in queued prompts that joined a turn, answered steers and replaced long-running results.
 */
import { compactionCut, EMPTY_FOLD, fold, held, pendingSteers, revise, transcript } from "./domain/transcript-fold.js";
import type { ModelMessage } from "../providers/domain/model-types.js";
import type { EventLog } from "../sessions/redis/event-log.js";
import type { TranscriptCache } from "./transcript-cache.js";

const PAGE = 500;

export interface CallInput {
  /** Shares its messages with the cached fold: providers read them and never change them. */
  messages: readonly ModelMessage[];
  steers: { id: string; text: string }[];
  /** How many of `messages` a compaction may summarize, keeping the turn started last or not (`compactionCut`). */
  cut: { keepingTurn: number; all: number };
}

export class Transcripts {
  constructor(
    private readonly log: EventLog,
    private readonly cache: TranscriptCache,
  ) {}

  async forCall(sessionId: string): Promise<CallInput> {
    let state = this.cache.get(sessionId) ?? EMPTY_FOLD;
    for (;;) {
      const page = await this.log.page(sessionId, state.sequence, PAGE);
      const again = held(state);
      if (again.length > 0) state = revise(state, await this.log.withOverlay(sessionId, again));
      state = fold(
        state,
        page.events.map((e) => e.envelope),
      );
      if (!page.more) break;
    }
    this.cache.set(sessionId, state);
    return { messages: transcript(state), steers: pendingSteers(state), cut: { keepingTurn: compactionCut(state, true), all: compactionCut(state, false) } };
  }
}
