/**
 * The cross-session reads of `session_search`: a subject's other conversations with an agent, newest
 * first, as the texts of their prompts and complete agent messages. Session records come from MongoDB;
 * their events from the session logs, through the reader the caller provides.
 */
import { textOf, writtenText, type Envelope, type TextBlock } from "../domain/events.js";
import type { SessionStore } from "./sessions.js";

/** Reads a session's durable events in order (the event log's history). */
export interface HistoryReader {
  history(sessionId: string, after: number, limit: number): Promise<Envelope[]>;
}

export interface PastConversation {
  sessionId: string;
  title: string | null;
  texts: string[];
}

export interface ConversationScope {
  orgId: string;
  agentId: string;
  subjectId: string;
  /** The session asking, left out. */
  exceptSessionId: string;
}

/** How many sessions, and events of each, one search reads. */
const SESSIONS = 20;
const EVENTS_PER_SESSION = 500;

function searchedText(e: Envelope): string | null {
  if (e.type !== "user.message" && !(e.type === "agent.message" && e.payload.delta === false)) return null;
  const blocks = e.payload.content as TextBlock[];
  return e.type === "agent.message" ? writtenText(blocks) : textOf(blocks);
}

export class PastConversations {
  constructor(
    private readonly sessions: SessionStore,
    private readonly log: HistoryReader,
  ) {}

  async of(scope: ConversationScope): Promise<PastConversation[]> {
    const page = await this.sessions.list(scope.orgId, { agentId: scope.agentId, subjectId: scope.subjectId }, { limit: SESSIONS, offset: 0 });
    const out: PastConversation[] = [];
    for (const other of page.items.filter((s) => s._id !== scope.exceptSessionId)) {
      const events = await this.log.history(other._id, 0, EVENTS_PER_SESSION);
      out.push({ sessionId: other._id, title: other.title, texts: events.map(searchedText).filter((t): t is string => t !== null) });
    }
    return out;
  }
}
