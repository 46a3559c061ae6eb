/**
 * Which fields of the runtime state a planner reads. A plan is a pure function of what it read, so it
 * is still the plan the planner would make now as long as those fields are unchanged: the commit checks
 * them, and only them (optimistic concurrency on the read set, not on the whole state's version).
 * Reading a field includes enumerating it (a spread reads every field).
 */
import type { RuntimeState } from "./domain/session-state.js";

export interface Tracked {
  /** The state to hand the planner: reads through it are recorded. */
  view: RuntimeState;
  read: ReadonlySet<string>;
}

export function trackReads(state: RuntimeState): Tracked {
  const read = new Set<string>();
  const note = (key: string | symbol) => {
    if (typeof key === "string") read.add(key);
  };
  const refuse = (): never => {
    throw new TypeError("a planner must not change the state it plans from");
  };
  const view = new Proxy(state, {
    get(target, key, receiver) {
      note(key);
      return Reflect.get(target, key, receiver) as unknown;
    },
    has(target, key) {
      note(key);
      return Reflect.has(target, key);
    },
    getOwnPropertyDescriptor(target, key) {
      note(key);
      return Reflect.getOwnPropertyDescriptor(target, key);
    },
    ownKeys(target) {
      const keys = Reflect.ownKeys(target);
      keys.forEach(note);
      return keys;
    },
    set: refuse,
    defineProperty: refuse,
    deleteProperty: refuse,
  });
  return { view, read };
}
