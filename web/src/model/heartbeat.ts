/**
 * Finds an events socket that died without a close. A browser answers the
 * server's protocol pings but cannot see them, and learns of a dead
 * connection only as fast as TCP does: a phone that moved from Wi-Fi to its
 * mobile network, or a laptop whose network went away without an `offline`,
 * may show a `live` inbox for minutes while answers and questions pass it by.
 * So the page asks for a `pong` when it has heard nothing for a while, and
 * counts a socket that stays silent past the reply window as dead.
 */

/** Silence after which the page asks whether the socket still lives. */
export const HEARTBEAT_IDLE_MS = 25_000;
/** How long a ping may go unanswered; the server replies after earlier frames only. */
export const HEARTBEAT_REPLY_MS = 10_000;

export interface HeartbeatTimers {
  setTimer: (callback: () => void, ms: number) => unknown;
  clearTimer: (handle: unknown) => void;
}

export class Heartbeat {
  private timer: unknown;
  private stopped = false;

  /**
   * `ping` sends the frame; `dead` is called once, when a ping went
   * unanswered, and the heartbeat stops.
   */
  constructor(
    private readonly timers: HeartbeatTimers,
    private readonly ping: () => void,
    private readonly dead: () => void,
  ) {
    this.waitForSilence();
  }

  /** Anything came from the server: the socket lives, and the silence starts over. */
  heard(): void {
    if (this.stopped) return;
    this.clear();
    this.waitForSilence();
  }

  stop(): void {
    this.stopped = true;
    this.clear();
  }

  private waitForSilence(): void {
    this.timer = this.timers.setTimer(() => {
      this.ping();
      this.timer = this.timers.setTimer(() => {
        this.timer = undefined;
        this.stop();
        this.dead();
      }, HEARTBEAT_REPLY_MS);
    }, HEARTBEAT_IDLE_MS);
  }

  private clear(): void {
    if (this.timer === undefined) return;
    this.timers.clearTimer(this.timer);
    this.timer = undefined;
  }
}
