/**
 * Builds what users load: every entry of deno.json's `exports` is a file of
 * dist/, made by `deno bundle` from its TypeScript source (`./dist/kv/mod.js`
 * from `./kv/mod.ts`). Why: a fresh process importing the sources loads 58
 * modules for mod.ts alone, and each costs Deno a lookup, a read and a compile
 * (issue 29); mod.js is 3 files of the bundle.
 *
 * - Code-split: the entry points share one copy of each module, so a class
 *   is the same class whichever entry point it came through (`instanceof`);
 *   every entry reaches the whole core, so the core is one shared file (see
 *   scripts/entry_wrappers.ts).
 * - npm packages stay imports, resolved by deno.json's `imports` as before.
 * - Each entry file starts with `@ts-self-types` naming its source: types,
 *   docs and `deno doc --lint` still come from the TypeScript.
 * - No `--keep-names`: it wraps every closure in a call that sets its name,
 *   on the hot path too. The bundler renames only a top-level name that
 *   collides (`execute2`, seen in stack traces); tests/dist_test.ts fails if a
 *   class or an exported function is ever renamed (errors name themselves
 *   with `new.target.name`).
 *
 * - The top-level functions of the core entry (mod.js and the chunks it
 *   imports) are compiled with their module, so Deno's code cache holds them
 *   (see scripts/eager_functions.ts), except those of `LAZY_MODULES`.
 * - Chunks are named after their first module (`chunk-harness_limits.js`),
 *   not the bundler's content hash: a change to one source then rewrites the
 *   chunks it is in, not the name of every chunk that imports them.
 *
 * `deno task build` rewrites dist/. `deno task build --check` (part of
 * `deno task ok`) changes nothing and fails, naming the files, when dist/ is
 * not what the sources build: commit dist/ with the sources it came from.
 *
 * @module
 */
import { relative } from "node:path";
import { eagerFunctions } from "./eager_functions.ts";
import { writeEntryWrappers } from "./entry_wrappers.ts";

const ROOT = new URL("../", import.meta.url).pathname;

/**
 * The core entry's modules no plain turn calls: their functions stay lazy
 * (see scripts/eager_functions.ts), compiled by the runs that use them.
 */
export const LAZY_MODULES: ReadonlySet<string> = new Set([
  "harness/compaction.ts",
  "harness/context_policy.ts",
  "harness/context_view.ts",
  "harness/summary_prompt.ts",
  "harness/fork.ts",
  "harness/replay.ts",
  "harness/output.ts",
  "harness/verdict.ts",
  "harness/lost_replies.ts",
  "harness/unfinished_call.ts",
  "harness/schema_issue.ts",
  "subagents/agent_options.ts",
  "subagents/agent_run_options.ts",
  "subagents/agent_tool.ts",
  "subagents/define_agent.ts",
  "subagents/run_agent.ts",
]);
const DIST = "dist/";
/** Where the entries' wrappers are written for the bundler (see scripts/entry_wrappers.ts). */
const WRAPPERS = ".dist-entries/";
/** Entries that export only types: they load nothing, the core included. */
const TYPES_ONLY: ReadonlySet<string> = new Set(["model/mod.ts"]);

/** One published entry: where users load it from and the source it is built from. */
interface Entry {
  dist: string;
  source: string;
}

/** The entries of `exports` (each `./dist/<path>.js`) and the externals of `imports`. */
async function readConfig(): Promise<{ entries: Entry[]; externals: string[] }> {
  const config = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`));
  const entries = Object.entries(config.exports as Record<string, string>).map(([name, path]) => {
    const match = /^\.\/dist\/(.+)\.js$/.exec(path);
    if (!match) throw new TypeError(`exports["${name}"] must be ./dist/<path>.js, got "${path}"`);
    return { dist: `${DIST}${match[1]}.js`, source: `${match[1]}.ts` };
  });
  // A mapped prefix ("hono/") covers its subpaths; a plain name stays external as itself.
  const externals = Object.keys(config.imports ?? {}).map((k) => k.endsWith("/") ? `${k}*` : k);
  return { entries, externals: ["npm:*", ...externals] };
}

/** Bundles `entries` into `outdir` (made fresh) and heads each entry with its types. */
async function build(entries: Entry[], externals: string[], outdir: string): Promise<void> {
  const args = ["bundle", "--quiet", "--platform", "deno", "--packages", "external"];
  for (const e of externals) args.push("--external", e);
  args.push("--code-splitting", "--outdir", outdir);
  // A fixed folder, not a temporary one: the bundle names its modules by path.
  const wrappers = `${ROOT}${WRAPPERS}`;
  await Deno.remove(wrappers, { recursive: true }).catch(() => {});
  try {
    const sources = entries.map((e) => e.source);
    args.push(...await writeEntryWrappers(ROOT, wrappers, sources, TYPES_ONLY));
    const out = await new Deno.Command(Deno.execPath(), { args, cwd: ROOT, stderr: "piped" })
      .output();
    if (!out.success) {
      throw new Error(`deno bundle failed:\n${new TextDecoder().decode(out.stderr)}`);
    }
  } finally {
    await Deno.remove(wrappers, { recursive: true }).catch(() => {});
  }
  await stableNames(outdir);
  // What every run calls (the core entry and what it imports), not the server's or
  // the KV's: those stay lazy, compiled only by the processes that call them.
  const held = new Set<string>();
  for (const path of await importClosure(`${outdir}/mod.js`)) {
    const eager = eagerFunctions(await Deno.readTextFile(path), LAZY_MODULES);
    eager.modules.forEach((m) => held.add(m));
    await Deno.writeTextFile(path, eager.code);
  }
  // A module moved or renamed would silently turn eager again.
  const gone = [...LAZY_MODULES].filter((m) => !held.has(m));
  if (gone.length) throw new Error(`LAZY_MODULES names what the core entry lacks: ${gone}`);
  for (const e of entries) {
    const file = `${outdir}/${e.dist.slice(DIST.length)}`;
    const types = relative(`${ROOT}${e.dist}`.replace(/[^/]+$/, ""), `${ROOT}${e.source}`);
    const body = await Deno.readTextFile(file);
    const spec = types.startsWith(".") ? types : `./${types}`;
    await Deno.writeTextFile(file, `// @ts-self-types="${spec}"\n${body}`);
  }
}

/**
 * Renames the bundler's hashed files (`chunk-4Q4MPWPK.js`, `mcp_servers-MOJDZRVJ.js`)
 * after what they hold, and every import of them: a chunk after its first
 * module (`// harness/limits.ts` → `chunk-harness_limits.js`) or, with none,
 * its first export; a split-off entry (`mcp_servers-…`) after its own name.
 */
async function stableNames(outdir: string): Promise<void> {
  const files = await listFiles(outdir);
  const renames = new Map<string, string>();
  const taken = new Set(files);
  for (const file of files) {
    const hashed = /^([\w]+)-[A-Z0-9]{8}\.js$/.exec(file);
    if (!hashed) continue;
    const text = await Deno.readTextFile(`${outdir}/${file}`);
    const module = /^\/\/ ([\w/]+)\.ts$/m.exec(text)?.[1];
    const exported = /^export \{\s*(\w+)/m.exec(text)?.[1];
    const stem = hashed[1] !== "chunk"
      ? hashed[1]
      : `chunk-${(module ?? exported ?? "").replaceAll("/", "_")}`;
    let name = `${stem}.js`;
    for (let n = 2; taken.has(name); n++) name = `${stem}-${n}.js`;
    taken.add(name);
    renames.set(file, name);
  }
  for (const file of files) {
    const path = `${outdir}/${file}`;
    let text = await Deno.readTextFile(path);
    for (const [from, to] of renames) text = text.replaceAll(`/${from}"`, `/${to}"`);
    await Deno.writeTextFile(path, text);
  }
  for (const [from, to] of renames) await Deno.rename(`${outdir}/${from}`, `${outdir}/${to}`);
}

/** `entry` and the bundled files it imports, statically, at any depth. */
async function importClosure(entry: string): Promise<string[]> {
  const seen = new Set<string>();
  const visit = async (path: string): Promise<void> => {
    if (seen.has(path)) return;
    seen.add(path);
    const text = await Deno.readTextFile(path);
    for (const m of text.matchAll(/^(?:import|export)\b[^;]*?\bfrom "(\.[^"]+)";/gms)) {
      await visit(new URL(m[1]!, `file://${path}`).pathname);
    }
  };
  await visit(entry);
  return [...seen].sort();
}

/** Every file under `dir`, as paths relative to it, sorted. */
async function listFiles(dir: string, prefix = ""): Promise<string[]> {
  const files: string[] = [];
  try {
    for await (const entry of Deno.readDir(`${dir}/${prefix}`)) {
      const path = `${prefix}${entry.name}`;
      if (entry.isDirectory) files.push(...await listFiles(dir, `${path}/`));
      else files.push(path);
    }
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  }
  return files.sort();
}

/** The files of dist/ that differ from a fresh build in `built` (missing, extra or changed). */
async function staleFiles(built: string): Promise<string[]> {
  const [want, have] = await Promise.all([listFiles(built), listFiles(`${ROOT}${DIST}`)]);
  const stale = new Set([...want, ...have].filter((f) => !want.includes(f) || !have.includes(f)));
  for (const f of want.filter((f) => have.includes(f))) {
    const [a, b] = await Promise.all([
      Deno.readTextFile(`${built}/${f}`),
      Deno.readTextFile(`${ROOT}${DIST}${f}`),
    ]);
    if (a !== b) stale.add(f);
  }
  return [...stale].sort();
}

if (import.meta.main) {
  const check = Deno.args.includes("--check");
  const { entries, externals } = await readConfig();
  // Beside dist/, so that renaming it into place never crosses file systems.
  const outdir = await Deno.makeTempDir({ dir: ROOT, prefix: ".dist-" });
  try {
    await build(entries, externals, outdir);
    if (check) {
      const stale = await staleFiles(outdir);
      if (stale.length) {
        console.error(
          `dist/ is not what the sources build (run \`deno task build\`): ${
            stale.map((f) => `${DIST}${f}`).join(", ")
          }`,
        );
        Deno.exitCode = 1; // not Deno.exit: the build's folder is removed below first
      }
    } else {
      await Deno.remove(`${ROOT}${DIST}`, { recursive: true }).catch(() => {});
      await Deno.rename(outdir, `${ROOT}${DIST}`);
      console.log(`${DIST}: ${(await listFiles(`${ROOT}${DIST}`)).length} files`);
    }
  } finally {
    await Deno.remove(outdir, { recursive: true }).catch(() => {});
  }
}
