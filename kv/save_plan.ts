/**
 * What one save writes: the new messages (chunked), the header (chunked when
 * large, cut over the ceiling), and the index keys that changed since the
 * last save. Planning is pure; `KvRunStore.save` commits the plan.
 *
 * @module
 */
import type { RunState } from "../harness/state.ts";
import { RunConflictError } from "../harness/errors.ts";
import { RecordError } from "./record_error.ts";
import { type IndexFields, indexKeys, messageKey, runKey } from "./keys.ts";
import { parseHeader, parseMessage, type StoredHeader, toHeader } from "./record.ts";
import { headerWrites, overCeiling, serializeHeader } from "./header_chunks.ts";
import { encodeMessage, type Write, write } from "./chunks.ts";

/** Longest run id: two of them go into a `runs_by_parent` key, and KV keys hold 2,048 bytes. */
const MAX_ID_BYTES = 512;
const encoder = new TextEncoder();

/** What a store instance last saw of a run. */
export interface Known {
  /** The header's versionstamp. */
  versionstamp: string;
  /** Messages stored. */
  count: number;
  /** The index fields stored. */
  index: IndexFields;
}

/** The writes of one save, see {@link planSave}. */
export interface SavePlan {
  /** The header as stored (cut when over the ceiling). */
  header: StoredHeader;
  /** The cut header when over the ceiling (the run is then stored failed), else null. */
  cut: StoredHeader | null;
  /** New message chunks, in order. */
  writes: Write[];
  /** What the last atomic must hold: the header and the new index keys. */
  final: Write[];
  /** Index keys to delete. */
  drops: Deno.KvKey[];
  /** Bytes to keep free in the last atomic for `final` and `drops`. */
  reserve: number;
  /** The index fields after the save. */
  index: IndexFields;
}

/**
 * Plans the save of `state`, given what was last seen of it. `trusted`: its
 * header needs no validation (the messages it appends are validated anyway).
 * `extra`: more writes for the last atomic (a new run's settings).
 *
 * @example
 * ```ts
 * import { planSave } from "./save_plan.ts";
 * import { newRun } from "../harness/state.ts";
 * console.log(planSave(newRun("hi"), undefined).writes.length); // 1
 * ```
 */
export function planSave(
  state: Readonly<RunState>,
  known: Known | undefined,
  trusted = false,
  extra: readonly Write[] = [],
): SavePlan {
  const id = state.runId;
  for (const [what, value] of [["runId", id], ["parentId", state.parentId ?? ""]]) {
    if (encoder.encode(value).byteLength > MAX_ID_BYTES) {
      throw new TypeError(
        `save: ${what} is longer than ${MAX_ID_BYTES} bytes (KV keys hold 2,048)`,
      );
    }
  }
  const start = known?.count ?? 0;
  if (start > state.messages.length) {
    // An older copy of the run (it went on since, here or elsewhere): what callers catch.
    throw new RunConflictError(
      id,
      `${start} messages are stored but the state has ${state.messages.length} ` +
        `(messages are append-only: this is an older copy)`,
    );
  }
  // `trusted`: this state's header was validated on an earlier save and only the loop
  // changed it since (driven_states.ts). Either way it is serialized now, before the
  // state moves on.
  const full = trusted ? toHeader(state) : checked(id, () => parseHeader(id, toHeader(state)));
  const json = serializeHeader(full);
  // Over the ceiling: stored failed, long texts cut, and the save throws (below).
  const cut = overCeiling(full, json);
  const header = cut ?? full;
  const writes: Write[] = [];
  for (let seq = start; seq < state.messages.length; seq++) {
    const message = checked(id, () => parseMessage(id, seq, state.messages[seq]));
    encodeMessage(message).forEach((c, part) => writes.push(write(messageKey(id, seq, part), c)));
  }
  const index: IndexFields = {
    runId: id,
    status: header.status,
    createdAtMs: Date.parse(header.createdAt),
    parentId: header.parentId,
  };
  const { adds, drops } = indexChanges(known?.index, index);
  const final = [...headerWrites(runKey(id), header, cut ? undefined : json), ...adds, ...extra];
  const reserve = final.reduce((n, w) => n + w.bytes, 0) + drops.length * 100 + 200;
  return { header, cut, writes, final, drops, reserve, index };
}

/** The index keys to write and to delete; none while the indexed fields stay the same. */
function indexChanges(
  before: IndexFields | undefined,
  after: IndexFields,
): { adds: Write[]; drops: Deno.KvKey[] } {
  if (
    before && before.status === after.status && before.parentId === after.parentId &&
    before.createdAtMs === after.createdAtMs && before.runId === after.runId
  ) return { adds: [], drops: [] };
  const oldKeys = before ? indexKeys(before) : [];
  const newKeys = indexKeys(after);
  const has = (keys: Deno.KvKey[], k: Deno.KvKey) =>
    keys.some((o) => JSON.stringify(o) === JSON.stringify(k));
  return {
    adds: newKeys.filter((k) => !has(oldKeys, k)).map((k) => write(k, after.runId)),
    drops: oldKeys.filter((k) => !has(newKeys, k)),
  };
}

/** Validation of a state about to be saved: a bad state is the caller's error. */
export function checked<T>(id: string, parse: () => T): T {
  try {
    return parse();
  } catch (e) {
    if (!(e instanceof RecordError)) throw e;
    const problem = e.message.slice(e.message.indexOf(`"${e.field}": `) + e.field.length + 4);
    throw new TypeError(`save("${id}"): invalid state at "${e.field}": ${problem}`, { cause: e });
  }
}
