// @ts-self-types="../../demo/mod.ts"
import {
  listFilesTool,
  readFileTool,
  scanArchiveTool
} from "../chunk-tools_list_files.js";
import {
  defineTool
} from "../chunk-harness_limits.js";
import {
  PermanentToolError
} from "../chunk-harness_errors.js";

// tools/workspace.ts
import { basename, dirname, isAbsolute, join, relative, resolve as resolvePath, sep } from "node:path";

// tools/fixtures.ts
var ERRORS_LOG = `2025-03-14T08:00:01.112Z INFO  scheduler: starting 12 workers (queue=ingest, batch=500)
2025-03-14T08:00:01.530Z INFO  worker 1 ready (pid 4121)
2025-03-14T08:00:01.534Z INFO  worker 2 ready (pid 4122)
2025-03-14T08:00:01.541Z INFO  worker 3 ready (pid 4123)
2025-03-14T08:00:01.552Z INFO  worker 7 ready (pid 4127)
2025-03-14T08:02:17.804Z WARN  worker 3 slow batch: 500 rows in 8412 ms (threshold 5000 ms)
2025-03-14T08:05:44.019Z ERROR worker 5 failed to parse row 18233: unexpected token '}' at column 88
2025-03-14T08:05:44.020Z INFO  worker 5 skipped row 18233 and continued
2025-03-14T08:11:02.377Z WARN  db pool: 19 of 20 connections in use
2025-03-14T08:11:09.951Z ERROR worker 2 insert rejected: duplicate key value violates unique constraint "events_pkey"
2025-03-14T08:11:09.952Z INFO  worker 2 retrying batch 7710 with upsert
2025-03-14T08:14:30.600Z ERROR worker 7 timed out after 30000 ms waiting for db connection
2025-03-14T08:14:30.601Z INFO  scheduler: requeued batch 7731 (attempt 2 of 5)
2025-03-14T08:14:31.222Z INFO  worker 7 restarted (pid 4188)
2025-03-14T08:19:55.470Z WARN  disk /var/lib/ingest at 91% (threshold 90%)
2025-03-14T08:23:12.003Z ERROR worker 9 upstream 502 Bad Gateway from https://api.example.com/v2/events
2025-03-14T08:23:12.640Z INFO  worker 9 upstream recovered after 1 retry
2025-03-14T08:30:00.000Z INFO  scheduler: checkpoint written (processed=412800, failed=3)
2025-03-14T08:41:27.318Z ERROR worker 11 out of memory: heap limit 512 MB reached, batch 7902 aborted
2025-03-14T08:41:27.900Z INFO  scheduler: requeued batch 7902 (attempt 2 of 5)
2025-03-14T08:41:28.455Z INFO  worker 11 restarted (pid 4240)
2025-03-14T08:52:03.771Z WARN  db pool: connection reset by peer, reconnecting
2025-03-14T08:52:04.102Z INFO  db pool: reconnected (20 connections)
2025-03-14T09:00:00.000Z INFO  scheduler: checkpoint written (processed=688150, failed=5)
2025-03-14T09:04:16.588Z ERROR worker 4 certificate verify failed for api.example.com: certificate has expired
2025-03-14T09:04:16.590Z INFO  scheduler: paused queue=ingest until operator acknowledges
`;
var ACCESS_LOG = `203.0.113.7 - - [14/Mar/2025:08:01:12 +0000] "GET /api/v2/status HTTP/1.1" 200 84 "-" "curl/8.5.0"
198.51.100.23 - - [14/Mar/2025:08:03:40 +0000] "POST /api/v2/events HTTP/1.1" 202 17 "-" "ingest-client/3.1"
198.51.100.23 - - [14/Mar/2025:08:03:41 +0000] "POST /api/v2/events HTTP/1.1" 202 17 "-" "ingest-client/3.1"
192.0.2.44 - - [14/Mar/2025:08:07:05 +0000] "GET /dashboard HTTP/1.1" 200 5120 "-" "Mozilla/5.0"
192.0.2.44 - - [14/Mar/2025:08:07:06 +0000] "GET /static/app.js HTTP/1.1" 304 0 "/dashboard" "Mozilla/5.0"
203.0.113.7 - - [14/Mar/2025:08:14:29 +0000] "GET /api/v2/status HTTP/1.1" 503 61 "-" "curl/8.5.0"
198.51.100.23 - - [14/Mar/2025:08:23:12 +0000] "POST /api/v2/events HTTP/1.1" 502 0 "-" "ingest-client/3.1"
192.0.2.91 - - [14/Mar/2025:08:44:50 +0000] "GET /admin HTTP/1.1" 403 9 "-" "python-requests/2.31"
`;
var NOTES_TXT = `On-call notes, week 11

- Remember to rotate your logs. errors.log grows fastest.
- The db pool is sized at 20; raise it before the Friday import.
- api.example.com certificate expires soon: ask the platform team.
`;
var FIXTURES = Object.freeze({
  "access.log": ACCESS_LOG,
  "errors.log": ERRORS_LOG,
  "notes.txt": NOTES_TXT
});

// tools/workspace.ts
async function createWorkspace(options = {}) {
  if (options.dir !== void 0 && options.parent !== void 0) {
    throw new TypeError("createWorkspace: pass either dir or parent, not both");
  }
  if (options.dir !== void 0) return openWorkspace(await prepareDir(options.dir, options));
  if (options.parent !== void 0) await Deno.mkdir(options.parent, {
    recursive: true
  });
  const prefix = "reins-ws-";
  const dir = await Deno.makeTempDir(options.parent === void 0 ? {
    prefix
  } : {
    prefix,
    dir: options.parent
  });
  await writeFixtures(dir, options);
  return openWorkspace(dir);
}
async function writeFixtures(dir, options) {
  for (const [name, text] of Object.entries(FIXTURES)) {
    await Deno.writeTextFile(join(dir, name), text);
    await options.onFileWritten?.(name);
  }
}
async function prepareDir(dir, options) {
  const target = resolvePath(dir);
  if (await isDirectory(target)) {
    if (options.keep) return target;
    for (const [name, text] of Object.entries(FIXTURES)) {
      const tmp2 = join(target, `.${name}.${crypto.randomUUID()}.tmp`);
      await Deno.writeTextFile(tmp2, text);
      await Deno.rename(tmp2, join(target, name));
      await options.onFileWritten?.(name);
    }
    return target;
  }
  await Deno.mkdir(dirname(target), {
    recursive: true
  });
  const tmp = await Deno.makeTempDir({
    dir: dirname(target),
    prefix: `.${basename(target)}.tmp-`
  });
  try {
    await writeFixtures(tmp, options);
    try {
      await Deno.rename(tmp, target);
    } catch (e) {
      if (!await isDirectory(target)) throw e;
      await Deno.remove(tmp, {
        recursive: true
      });
    }
  } catch (e) {
    await Deno.remove(tmp, {
      recursive: true
    }).catch(() => {
    });
    throw e;
  }
  return target;
}
async function isDirectory(path) {
  try {
    return (await Deno.stat(path)).isDirectory;
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return false;
    throw e;
  }
}
function openWorkspace(dir) {
  const root = Deno.realPathSync(dir);
  const inside = (p) => p === root || p.startsWith(root.endsWith(sep) ? root : root + sep);
  const refuse = (path) => {
    throw new PermanentToolError(`permission denied: ${JSON.stringify(path)} is outside the workspace`);
  };
  const escapes = (abs, hops) => {
    if (!inside(abs) || hops > 40) return true;
    for (let p = abs; p !== root; p = dirname(p)) {
      try {
        return !inside(Deno.realPathSync(p));
      } catch {
        const target = linkTarget(p);
        if (target !== void 0) return escapes(resolvePath(dirname(p), target), hops + 1);
      }
    }
    return false;
  };
  return {
    dir: root,
    resolve(path) {
      if (typeof path !== "string" || path.includes("\0")) refuse(String(path));
      const abs = isAbsolute(path) ? resolvePath(path) : resolvePath(root, path);
      if (!escapes(abs, 0)) return abs;
      return refuse(path);
    },
    async files() {
      const out = [];
      const walk = async (folder) => {
        for await (const entry of Deno.readDir(folder)) {
          if (entry.name.startsWith(".")) continue;
          const full = join(folder, entry.name);
          if (entry.isDirectory) await walk(full);
          else out.push(relative(root, full).split(sep).join("/"));
        }
      };
      await walk(root);
      return out.sort();
    },
    async remove() {
      try {
        await Deno.remove(root, {
          recursive: true
        });
      } catch (e) {
        if (!(e instanceof Deno.errors.NotFound)) throw e;
      }
    }
  };
}
function linkTarget(path) {
  try {
    return Deno.lstatSync(path).isSymlink ? Deno.readLinkSync(path) : void 0;
  } catch {
    return void 0;
  }
}

// tools/delete_file.ts
import { join as join2 } from "node:path";
import { z } from "zod";
var EFFECTS_LOG = ".effects.log";
var PARAMETERS = z.object({
  path: z.string().min(1).describe("File path relative to the workspace, e.g. notes.txt")
});
function deleteFileTool(ws) {
  return defineTool({
    name: "delete_file",
    description: "Deletes a file in the workspace. A person must approve each deletion.",
    parameters: PARAMETERS,
    readOnly: false,
    idempotent: false,
    needsApproval: true,
    async run({ path }, ctx) {
      ctx.signal.throwIfAborted();
      const abs = ws.resolve(path);
      if (abs === ws.resolve(EFFECTS_LOG)) {
        throw new Error(`${path} belongs to the harness. Nothing was deleted.`);
      }
      try {
        const info = await Deno.lstat(abs);
        if (info.isDirectory) {
          throw new Error(`${path} is a directory; delete_file removes files only. Nothing was deleted.`);
        }
        await Deno.remove(abs);
      } catch (e) {
        if (e instanceof Deno.errors.NotFound) {
          throw new Error(`no such file: ${path}. Nothing was deleted.`);
        }
        if (e instanceof Deno.errors.PermissionDenied || e instanceof Deno.errors.NotCapable) {
          throw new PermanentToolError(`permission denied: ${path} cannot be deleted`, {
            cause: e
          });
        }
        throw e;
      }
      const line = `${oneLine(ctx.idempotencyKey)}	${oneLine(path)}
`;
      await Deno.writeTextFile(join2(ws.dir, EFFECTS_LOG), line, {
        append: true
      });
      return `deleted ${path}`;
    }
  });
}
function oneLine(s) {
  return s.replace(/[\t\n\r]/g, " ");
}

// tools/catalog.ts
function demoTools(ws, options = {}) {
  return [
    listFilesTool(ws),
    readFileTool(ws, options.read),
    deleteFileTool(ws),
    scanArchiveTool(ws, options.scan)
  ];
}
export {
  createWorkspace,
  demoTools
};
