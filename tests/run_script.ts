// One way for tests to run a script of this repository in a child `deno run`:
// to the end (`runScript`, decoded output) or as a live child (`spawnScript`).
import { fileURLToPath } from "node:url";

/** The repository's root folder, with a trailing slash. */
export const ROOT = fileURLToPath(new URL("..", import.meta.url));

/**
 * The `deno run` flag for a child that loads a test-only package (playwright-core, openai,
 * the reference MCP servers): their lock file, `deno.dev.lock`, not the apps' `deno.lock`
 * (README, "Dependencies").
 */
export const DEV_LOCK = `--lock=${ROOT}deno.dev.lock`;

/** How a script is run: `deno run <flags> <ROOT><script> <args>`. */
export interface ScriptOptions {
  /** The child's working folder; this process's when unset. */
  cwd?: string;
  /** Variables added to this process's environment. */
  env?: Record<string, string>;
  /** Kill the child after this long (it must exit by itself before). */
  timeoutMs?: number;
  /** `deno run` flags; `-A --unstable-kv` when unset. */
  flags?: string[];
}

/** What a finished script did. */
export interface ScriptOutput {
  code: number;
  stdout: string;
  stderr: string;
}

function scriptCommand(script: string, args: string[], options: ScriptOptions): Deno.Command {
  const { cwd, env, timeoutMs, flags = ["-A", "--unstable-kv"] } = options;
  return new Deno.Command(Deno.execPath(), {
    args: ["run", ...flags, `${ROOT}${script}`, ...args],
    cwd,
    env,
    stdout: "piped",
    stderr: "piped",
    signal: timeoutMs === undefined ? undefined : AbortSignal.timeout(timeoutMs),
  });
}

/** Runs `script` (a path from the root) to its end; its exit code and decoded output. */
export async function runScript(
  script: string,
  args: string[] = [],
  options: ScriptOptions = {},
): Promise<ScriptOutput> {
  const out = await scriptCommand(script, args, options).output();
  const td = new TextDecoder();
  return { code: out.code, stdout: td.decode(out.stdout), stderr: td.decode(out.stderr) };
}

/** Starts `script` (a path from the root) with stdout and stderr piped; the caller drains them. */
export function spawnScript(
  script: string,
  args: string[] = [],
  options: ScriptOptions = {},
): Deno.ChildProcess {
  return scriptCommand(script, args, options).spawn();
}

/** Reads on from `out` until it matches `until` (to the end when unset, or the stream ends). */
export async function readUntil(
  reader: ReadableStreamDefaultReader<string>,
  until?: RegExp,
  out = "",
): Promise<string> {
  while (!until?.test(out)) {
    const { value, done } = await reader.read();
    if (done) break;
    out += value;
  }
  return out;
}

/** The last line of `stdout`, parsed: what a `--json` run prints last. */
// deno-lint-ignore no-explicit-any
export const lastJson = (stdout: string): any => JSON.parse(stdout.trim().split("\n").at(-1)!);

/** The `deno run` flags of a deno.json task ("deno run FLAGS script.ts"), with the config. */
export async function taskFlags(task: string): Promise<string[]> {
  const config = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`));
  const words = (config.tasks[task] as string).split(/\s+/);
  return ["--config", `${ROOT}deno.json`, ...words.slice(2, -1)];
}
