/**
 * The transcripts a worker keeps between model calls, as folds (each with the sequence it covers), so
 * a session's next call reads only the events since. Bounded by sessions and by estimated bytes; the
 * least recently used go first. A fold larger than the whole budget is not kept: its session folds
 * the log afresh at each call until compaction bounds its transcript.
 */
import type { TranscriptFold } from "./domain/transcript-fold.js";

export interface TranscriptCacheLimits {
  sessions: number;
  bytes: number;
}

export class TranscriptCache {
  /** In order of use, least recent first (a Map keeps insertion order). */
  private readonly entries = new Map<string, TranscriptFold>();
  private total = 0;

  constructor(private readonly limits: TranscriptCacheLimits) {}

  get(sessionId: string): TranscriptFold | undefined {
    const fold = this.entries.get(sessionId);
    if (fold) {
      this.entries.delete(sessionId);
      this.entries.set(sessionId, fold);
    }
    return fold;
  }

  set(sessionId: string, fold: TranscriptFold): void {
    this.delete(sessionId);
    if (fold.bytes > this.limits.bytes) return;
    this.entries.set(sessionId, fold);
    this.total += fold.bytes;
    for (const [oldest, entry] of this.entries) {
      if (this.entries.size <= this.limits.sessions && this.total <= this.limits.bytes) break;
      this.entries.delete(oldest);
      this.total -= entry.bytes;
    }
  }

  delete(sessionId: string): void {
    const fold = this.entries.get(sessionId);
    if (!fold) return;
    this.entries.delete(sessionId);
    this.total -= fold.bytes;
  }

  /** Sessions and estimated bytes held. */
  usage(): { sessions: number; bytes: number } {
    return { sessions: this.entries.size, bytes: this.total };
  }
}
