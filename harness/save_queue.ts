/**
 * One run's saves, one at a time: its checkpoints, and the spend of its
 * running children, saved at a bounded rate so the stored cost a person reads
 * (to decide whether to press Stop) includes what children spend while they run.
 *
 * A parent runs in the same process as its children, and a store save is a
 * checked commit against the version the last save wrote: two saves of one run
 * at once would conflict, so every save of the run goes through this queue.
 *
 * @module
 */

/** The least time between two saves made only for children's spend, in ms. */
export const SPEND_SAVE_MS = 250;

/** The saves of one run; see {@link saveQueue}. */
export interface SaveQueue {
  /**
   * A checkpoint: saves now (after the save in progress, if any) and makes a
   * pending spend save unneeded. Throws what the save throws, or what a spend
   * save threw since the last checkpoint (a conflict, say).
   */
  checkpoint(): Promise<void>;
  /** Children spent: saves within {@link SPEND_SAVE_MS} unless a checkpoint comes first. */
  spent(): void;
  /** The run has ended: saves its last checkpoint and ignores later spend. */
  close(): Promise<void>;
  /** The run threw: no more saves (a pending spend save is dropped). */
  abandon(): void;
}

/**
 * A queue over `save` (which stores the run as it is when called; `spendOnly`
 * for a save made only because children spent).
 *
 * @example
 * ```ts
 * import { saveQueue } from "./save_queue.ts";
 * let saves = 0;
 * const q = saveQueue(() => Promise.resolve(void saves++));
 * q.spent();
 * await q.checkpoint(); // the spend save is no longer needed
 * await q.close();
 * console.log(saves); // 2
 * ```
 */
export function saveQueue(
  save: (spendOnly: boolean) => Promise<void>,
  intervalMs = SPEND_SAVE_MS,
): SaveQueue {
  let chain: Promise<void> = Promise.resolve();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let lastAt = -Infinity;
  let failure: unknown = null;
  let closed = false;

  const enqueue = (spendOnly: boolean): Promise<void> => {
    const next = chain.then(() => {
      lastAt = performance.now();
      return save(spendOnly);
    });
    chain = next.catch(() => {});
    return next;
  };
  const clearTimer = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
  };
  const spendSave = () => {
    timer = undefined;
    // A failure resurfaces at the next checkpoint, which would fail the same way.
    enqueue(true).catch((e) => failure ??= e);
  };
  const checkpoint = async () => {
    clearTimer();
    try {
      await enqueue(false);
    } catch (e) {
      failure = null; // the checkpoint's own failure is the one to report
      throw e;
    }
    if (failure !== null) {
      const e = failure;
      failure = null;
      throw e;
    }
  };
  return {
    checkpoint,
    spent() {
      if (closed || timer !== undefined) return;
      timer = setTimeout(spendSave, Math.max(0, lastAt + intervalMs - performance.now()));
    },
    close() {
      closed = true;
      return checkpoint();
    },
    abandon() {
      closed = true;
      clearTimer();
    },
  };
}
