import {
  retryLocked
} from "./chunk-kv_record_error.js";
import {
  ReinsError,
  messageOf
} from "./chunk-harness_errors.js";

// kv/open_kv.ts
import { dirname } from "node:path";
var KvOpenError = class extends ReinsError {
  /** Creates the error. */
  constructor(path, reason, options) {
    super(`Cannot open KV database "${path}": ${reason}`, options);
    this.name = "KvOpenError";
  }
};
var isLocalFile = (path) => path !== ":memory:" && !isKvUrl(path);
function reasonOf(e) {
  const [message = ""] = messageOf(e).split("\n");
  const denied = e instanceof Deno.errors.NotCapable && message.match(/access to "([^"]+)"/);
  if (!denied) return message;
  return `"${denied[1]}" is in a system folder (/proc, /dev, /sys), where no database can be kept: give a path in an ordinary folder`;
}
function isKvUrl(path) {
  return /^https?:\/\//i.test(path);
}
async function openKv(path, options = {}) {
  if (typeof Deno.openKv !== "function") {
    throw new KvOpenError(path ?? "default", 'Deno KV is off: add "kv" to deno.json "unstable"');
  }
  if (path !== void 0 && isLocalFile(path)) {
    try {
      await Deno.mkdir(dirname(path), {
        recursive: true
      });
    } catch (e) {
      throw new KvOpenError(path, `cannot create its folder: ${reasonOf(e)}`, {
        cause: e
      });
    }
  }
  try {
    return await retryLocked(() => Deno.openKv(path), {
      attempts: options.attempts ?? 10,
      delayMs: options.delayMs ?? 25
    });
  } catch (e) {
    if (path === void 0) throw e;
    throw new KvOpenError(path, reasonOf(e), {
      cause: e
    });
  }
}
async function defaultKvPath(path) {
  const chosen = path || ".reins/runs.sqlite";
  await ensureKvFolder(chosen);
  return chosen;
}
async function ensureKvFolder(path) {
  if (path === ":memory:" || isKvUrl(path)) return;
  await Deno.mkdir(dirname(path), {
    recursive: true
  });
}

export {
  KvOpenError,
  isKvUrl,
  openKv,
  defaultKvPath
};
