import {
  retryLocked
} from "./chunk-FV7LNKHT.js";
import {
  ReinsError
} from "./chunk-LVT2ZGFI.js";
import {
  messageOf
} from "./chunk-IYXQD7XI.js";
import {
  __name
} from "./chunk-OSOEW62Q.js";

// kv/open_kv.ts
import { dirname } from "node:path";
var KvOpenError = class extends ReinsError {
  static {
    __name(this, "KvOpenError");
  }
  /** Creates the error. */
  constructor(path, reason, options) {
    super(`Cannot open KV database "${path}": ${reason}`, options);
    this.name = "KvOpenError";
  }
};
var isLocalFile = /* @__PURE__ */ __name((path) => path !== ":memory:" && !isKvUrl(path), "isLocalFile");
function reasonOf(e) {
  const message = messageOf(e).split("\n")[0];
  const denied = e instanceof Deno.errors.NotCapable && message.match(/access to "([^"]+)"/);
  if (!denied) return message;
  return `"${denied[1]}" is in a system folder (/proc, /dev, /sys), where no database can be kept: give a path in an ordinary folder`;
}
__name(reasonOf, "reasonOf");
function isKvUrl(path) {
  return /^https?:\/\//i.test(path);
}
__name(isKvUrl, "isKvUrl");
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
__name(openKv, "openKv");
async function defaultKvPath(path) {
  const chosen = path || ".reins/runs.sqlite";
  await ensureKvFolder(chosen);
  return chosen;
}
__name(defaultKvPath, "defaultKvPath");
async function ensureKvFolder(path) {
  if (path === ":memory:" || isKvUrl(path)) return;
  await Deno.mkdir(dirname(path), {
    recursive: true
  });
}
__name(ensureKvFolder, "ensureKvFolder");

export {
  KvOpenError,
  isKvUrl,
  openKv,
  defaultKvPath
};
