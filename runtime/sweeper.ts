/**
 * When sweeps happen: on demand (a cron, a start-up), when nudged (any
 * incoming request, at most once per gap, never awaited by it), and on a
 * local timer for long-running processes. One sweep at a time per sweeper.
 *
 * @module
 */

/** Options of {@link startSweeper}. */
export interface SweeperOptions {
  /** Period of the local timer in ms; 0 for none (default 5000). */
  everyMs?: number | undefined;
  /** Least time between the starts of two nudged sweeps, in ms (default 2000). */
  nudgeGapMs?: number | undefined;
}

/** A started sweeper; see {@link startSweeper}. */
export interface Sweeper {
  /**
   * Sweeps now (a full sweep when `full`); joins the sweep going on, if any.
   * Resolves with the runs started; a failure is logged and resolves with [].
   */
  sweep(full?: boolean): Promise<string[]>;
  /** Starts a sweep unless one started less than `nudgeGapMs` ago; returns at once. */
  nudge(): void;
  /** No more sweeps: clears the timer and waits for the sweep going on. */
  stop(): Promise<void>;
}

/** The sweeper's periods, checked (`RangeError` for a negative one). */
function periods(options: SweeperOptions): { everyMs: number; gapMs: number } {
  const everyMs = options.everyMs ?? 5_000;
  const gapMs = options.nudgeGapMs ?? 2_000;
  if (!(everyMs >= 0) || !(gapMs >= 0)) {
    throw new RangeError(`sweeper: everyMs and nudgeGapMs must be >= 0, got ${everyMs}, ${gapMs}`);
  }
  return { everyMs, gapMs };
}

/**
 * A sweeper calling `pass` (one sweep, e.g. `sweepRunnable` bound to an
 * executor and a store).
 *
 * @example
 * ```ts
 * import { startSweeper } from "./sweeper.ts";
 * let sweeps = 0;
 * const sweeper = startSweeper(() => Promise.resolve([String(++sweeps)]), { everyMs: 0 });
 * console.log(await sweeper.sweep()); // ["1"]
 * sweeper.nudge(); // within the gap of the last start: nothing happens
 * await sweeper.stop();
 * console.log(sweeps); // 1
 * ```
 */
export function startSweeper(
  pass: (full: boolean) => Promise<string[]>,
  options: SweeperOptions = {},
): Sweeper {
  const { everyMs, gapMs } = periods(options);
  let current: { full: boolean; done: Promise<string[]> } | undefined;
  let lastStart = -Infinity;
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const start = (full: boolean): Promise<string[]> => {
    lastStart = Date.now();
    const done = pass(full).catch((e) => {
      if (!stopped) console.error("reins: sweeping for runnable runs failed:", e);
      return [] as string[];
    }).finally(() => {
      if (current?.done === done) current = undefined;
    });
    current = { full, done };
    return done;
  };

  const sweep = async (full = false): Promise<string[]> => {
    if (stopped) return [];
    if (current) {
      const joined = current;
      if (joined.full || !full) return await joined.done;
      await joined.done; // a full sweep was asked for: run one after this one
      if (stopped) return [];
      return await (current?.full ? current.done : start(true));
    }
    return await start(full);
  };

  const arm = () => {
    const t = setTimeout(tick, everyMs);
    Deno.unrefTimer(t); // the timer alone keeps no process alive
    timer = t;
  };
  const tick = () => {
    if (stopped) return;
    if (!current) void start(false);
    arm();
  };
  if (everyMs > 0) arm();

  return {
    sweep,
    nudge() {
      if (stopped || current || Date.now() - lastStart < gapMs) return;
      void start(false);
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await current?.done;
    },
  };
}
