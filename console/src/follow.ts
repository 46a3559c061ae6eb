/**
 * Auto-follow of a growing log: while the reader is at the bottom of the page, every change to the log
 * keeps them there; once they scroll up, the page stays put and a "Jump to latest" button says that
 * more arrived, and takes them back (following again).
 */
import { button } from "./dom.js";

/** How near the bottom counts as at it, in pixels (a line's rounding, a trackpad's overshoot). */
const SLACK = 48;

export interface Follower {
  /** The button; placed by the view. */
  jump: HTMLButtonElement;
  dispose(): void;
}

const atBottom = () => innerHeight + scrollY >= document.documentElement.scrollHeight - SLACK;
const toBottom = () => scrollTo({ top: document.documentElement.scrollHeight, behavior: "instant" });

export function follow(log: HTMLElement): Follower {
  let following = true;
  const jump = button(
    "↓ Jump to latest",
    () => {
      following = true;
      jump.hidden = true;
      toBottom();
    },
    { class: "jump", attrs: { "data-role": "jump-to-latest" } },
  );
  jump.hidden = true;
  const onScroll = () => {
    following = atBottom();
    if (following) jump.hidden = true;
  };
  const changes = new MutationObserver(() => {
    if (following) toBottom();
    else jump.hidden = false;
  });
  changes.observe(log, { childList: true, subtree: true, characterData: true });
  addEventListener("scroll", onScroll, { passive: true });
  return {
    jump,
    dispose() {
      changes.disconnect();
      removeEventListener("scroll", onScroll);
    },
  };
}
