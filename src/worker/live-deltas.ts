/**
 * A model call's streamed deltas on their way to the live stream. Appends are not awaited one by one:
 * they go out in order on one connection, so the model's stream never waits a round trip per delta
 * (and a reader sees them as soon as Redis has them). A refused append (the turn's lock was lost) is
 * reported at the next delta or at `flush`, which the turn awaits before anything it appends after
 * the call, so nothing durable follows deltas a lost lock refused.
 */
import type { Draft } from "../sessions/domain/events.js";
import { AppError } from "../errors.js";
import type { LiveStream } from "../streaming/redis/live-stream.js";

/** Appends under way at once; past this a delta waits for them (a model faster than Redis). */
const IN_FLIGHT = 64;

const lockLost = () => new AppError("lock_lost", "the turn lock was lost");

export class LiveDeltas {
  private inFlight: Promise<boolean>[] = [];
  private refused = false;

  constructor(
    private readonly live: LiveStream,
    private readonly sessionId: string,
    private readonly fence: string,
  ) {}

  async send(delta: Draft): Promise<void> {
    if (this.inFlight.length >= IN_FLIGHT) await this.settle();
    if (this.refused) throw lockLost();
    const append = this.live.append(this.sessionId, this.fence, delta);
    append.catch(() => undefined); // awaited by `settle`; this only keeps it from counting as unhandled meanwhile
    this.inFlight.push(append);
  }

  /** Waits for every append sent; throws when one failed or was refused. */
  async flush(): Promise<void> {
    await this.settle();
    if (this.refused) throw lockLost();
  }

  private async settle(): Promise<void> {
    const sent = this.inFlight.splice(0);
    if ((await Promise.all(sent)).includes(false)) this.refused = true;
  }
}
