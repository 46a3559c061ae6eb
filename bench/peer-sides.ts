/**
 * `bench:peer`'s two sides: what drives a turn on each (ours: a session watched over SSE; theirs: a thread
 * with `runs/wait`), and the groups of processes whose CPU time each is charged.
 */
import { cpuSeconds, cpuSpent } from "./database.js";
import { PeerServer, PeerThread, type Poll } from "./peer-server.js";
import type { Endpoint } from "./support.js";
import { WatchedSession } from "./watched.js";

/** A session or thread driven one turn at a time: ms of a turn, or null when our message allowance refused it. */
export interface Turner {
  turn(): Promise<number | null>;
}

/** CPU per turn of one group of processes; `counted` ones make up the side's total. */
export interface Part {
  name: string;
  ms: number;
  counted: boolean;
}

export interface Group {
  name: string;
  pids: () => number[];
  counted: boolean;
}

export interface Side {
  name: string;
  open(label: string): Promise<Turner>;
  groups: Group[];
}

/** A side for the length of one phase: theirs starts a fresh server and stops it after. */
export type Phase = <T>(work: (side: Side) => Promise<T>) => Promise<T>;

export const total = (parts: Part[]) => parts.filter((p) => p.counted).reduce((a, p) => a + p.ms, 0);

/** Reads each group's CPU time now; the function returned reads it again (processes afresh) and divides by the turns. */
export function cpuFrom(groups: Group[]): (turns: number) => Part[] {
  const before = groups.map((g) => cpuSeconds(g.pids()));
  return (turns) => groups.map((g, i) => ({ name: g.name, counted: g.counted, ms: (cpuSpent(before[i]!, cpuSeconds(g.pids())) * 1000) / turns }));
}

export function ourSide(service: Endpoint, agentId: string, groups: Group[], signal: AbortSignal): Side {
  return {
    name: "ours",
    groups,
    async open(label) {
      const session = await WatchedSession.open(service, agentId, label, signal);
      return { turn: async () => ((t) => (t.limited ? null : t.ms))(await session.turn()) };
    },
  };
}

export const client: Group = { name: "this process, the client", pids: () => [process.pid], counted: false };

export function theirSide(server: PeerServer, poll: Poll): Side {
  return {
    name: poll === "shortened" ? "theirs" : "shipped",
    groups: [{ name: "server", pids: () => server.pids(), counted: true }, client],
    async open() {
      return PeerThread.open(server);
    },
  };
}
