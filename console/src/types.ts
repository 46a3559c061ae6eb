/** The few shapes of the API the console reads (the OpenAPI document at /v1/openapi.json has them all). */
export interface TextBlock {
  type: "text";
  text: string;
}

export type Payload = { type: string } & Record<string, unknown>;

export interface EventEnvelope {
  id: string;
  type: string;
  sessionId: string;
  /** `null` on live-only frames (deltas), which history never holds. */
  sequence: number | null;
  turnId: string | null;
  status: string | null;
  payload: Payload;
  createdAt: string;
}

export interface Agent {
  id: string;
  name: string;
  status: string;
  updatedAt: string;
  version: { version: number; modelName: string };
}

export interface Session {
  id: string;
  agentId: string;
  subjectId: string;
  status: string;
  title: string | null;
  updatedAt: string;
}

export interface OffsetPage<T> {
  data: T[];
  pagination: { limit: number; offset: number; hasMore: boolean };
}

export interface EventPage {
  data: EventEnvelope[];
  pagination: { after: number; hasMore: boolean; limit: number };
}
