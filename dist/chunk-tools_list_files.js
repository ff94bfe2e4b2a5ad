import {
  cutText,
  defineTool
} from "./chunk-harness_limits.js";
import {
  PermanentToolError,
  sleep
} from "./chunk-harness_errors.js";

// tools/list_files.ts
import { z } from "zod";
var PARAMETERS = z.object({});
function listFilesTool(ws) {
  return defineTool({
    name: "list_files",
    description: "Lists the files in the workspace with their sizes in bytes, one per line.",
    parameters: PARAMETERS,
    readOnly: true,
    async run(_args, ctx) {
      ctx.signal.throwIfAborted();
      const names = await ws.files();
      if (names.length === 0) return "The workspace is empty.";
      const lines = [];
      for (const name of names) {
        try {
          const { size } = await Deno.stat(ws.resolve(name));
          lines.push(`${name} (${size} ${size === 1 ? "byte" : "bytes"})`);
        } catch (e) {
          if (e instanceof PermanentToolError) lines.push(`${name} (links outside the workspace)`);
          else if (!(e instanceof Deno.errors.NotFound)) throw e;
        }
      }
      return lines.join("\n");
    }
  });
}

// tools/read_file.ts
import { z as z2 } from "zod";
var READ_FILE_MAX_CHARS = 2e5;
var PARAMETERS2 = z2.object({
  path: z2.string().min(1).describe("File path relative to the workspace, e.g. errors.log")
});
function readFileTool(ws, options = {}) {
  const maxChars = options.maxChars ?? READ_FILE_MAX_CHARS;
  if (!Number.isInteger(maxChars) || maxChars < 1) {
    throw new RangeError(`readFileTool: maxChars must be a positive integer, got ${maxChars}`);
  }
  return defineTool({
    name: "read_file",
    description: `Returns the text of a file in the workspace (at most ${maxChars} characters). Call list_files first to see the names.`,
    parameters: PARAMETERS2,
    readOnly: true,
    async run({ path }, ctx) {
      ctx.signal.throwIfAborted();
      const abs = ws.resolve(path);
      let file;
      try {
        file = await Deno.open(abs, {
          read: true
        });
      } catch (e) {
        throw explain(e, path);
      }
      try {
        const info = await file.stat();
        if (info.isDirectory) throw new Deno.errors.IsADirectory();
        const limit = maxChars * 4 + 4;
        const { bytes, eof } = await readUpTo(file, limit, info.size, ctx.signal);
        const text = new TextDecoder().decode(bytes);
        if (eof && text.length <= maxChars) return text;
        const total = info.size > 0 ? ` (${info.size} bytes in all)` : "";
        return `${cutText(text, maxChars)}

[truncated: this is only the first ${maxChars} characters of ${path}${total}]`;
      } catch (e) {
        throw explain(e, path);
      } finally {
        file.close();
      }
    }
  });
}
function explain(e, path) {
  if (e instanceof Deno.errors.NotFound) {
    return new Error(`no such file: ${path}. Call list_files to see what exists.`);
  }
  if (e instanceof Deno.errors.PermissionDenied || e instanceof Deno.errors.NotCapable) {
    return new PermanentToolError(`permission denied: ${path} cannot be opened`, {
      cause: e
    });
  }
  if (e instanceof Deno.errors.IsADirectory) {
    return new Error(`${path} is a directory, not a file. Call list_files to see the files.`);
  }
  return e;
}
async function readUpTo(file, limit, sizeHint, signal) {
  let buf = new Uint8Array(Math.min(limit, sizeHint > 0 ? sizeHint + 1 : 64 * 1024));
  let n = 0;
  for (; ; ) {
    if (n === buf.length) {
      if (n === limit) return {
        bytes: buf,
        eof: await file.read(new Uint8Array(1)) === null
      };
      const bigger = new Uint8Array(Math.min(limit, buf.length * 2));
      bigger.set(buf);
      buf = bigger;
    }
    const got = await file.read(buf.subarray(n));
    if (got === null) return {
      bytes: buf.subarray(0, n),
      eof: true
    };
    n += got;
    signal.throwIfAborted();
  }
}

// tools/scan_archive.ts
import { z as z3 } from "zod";
var PARAMETERS3 = z3.object({});
function scanArchiveTool(_ws, options = {}) {
  const files = options.files ?? 1200;
  const ms = options.ms ?? 3e3;
  const every = options.every ?? 200;
  if (!Number.isInteger(files) || files < 1) {
    throw new RangeError(`scanArchiveTool: files must be a positive integer, got ${files}`);
  }
  if (!Number.isInteger(every) || every < 1) {
    throw new RangeError(`scanArchiveTool: every must be a positive integer, got ${every}`);
  }
  if (!Number.isFinite(ms) || ms < 0) {
    throw new RangeError(`scanArchiveTool: ms must be a non-negative number, got ${ms}`);
  }
  return defineTool({
    name: "scan_archive",
    description: `Scans the log archive (${files} files) for timeouts. Slow: takes about ${Math.round(ms / 1e3)} s.`,
    parameters: PARAMETERS3,
    readOnly: true,
    async run(_args, ctx) {
      ctx.signal.throwIfAborted();
      const hits = [];
      const started = performance.now();
      for (let done = 0; done < files; ) {
        const next = Math.min(files, done + every);
        for (let i = done + 1; i <= next; i++) {
          if (i % 400 === 137) hits.push(`archive/${String(i).padStart(4, "0")}.log`);
        }
        done = next;
        await sleep(started + ms * done / files - performance.now(), ctx.signal);
        ctx.progress(`scanned ${done} of ${files} files`, done / files);
      }
      const found = hits.length === 1 ? "1 mentions a timeout" : `${hits.length} mention a timeout`;
      return `scanned ${files} files; ${found}${hits.length ? `: ${hits.join(", ")}` : ""}`;
    }
  });
}

export {
  listFilesTool,
  readFileTool,
  scanArchiveTool
};
