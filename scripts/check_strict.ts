/**
 * Type-checks reins's sources as a stricter project that links or imports
 * them would: with the flags of `@tsconfig/strictest` deno.json's `strict`
 * lacks (`noUncheckedIndexedAccess`, `exactOptionalPropertyTypes`,
 * `noPropertyAccessFromIndexSignature`, unused locals, …) on top of its own
 * `compilerOptions` (under a link or a workspace, the user's options apply to
 * reins's sources). `deno task check:strict [paths...]`; the default paths are every
 * published folder.
 *
 * deno.json itself stays as it is: the flags would ask the same of the tests
 * and benchmarks, which index fixed fixtures freely.
 *
 * @module
 */

/** What a stricter project may turn on, checked here. */
export const STRICT_OPTIONS = {
  noUncheckedIndexedAccess: true,
  noImplicitReturns: true,
  exactOptionalPropertyTypes: true,
  noPropertyAccessFromIndexSignature: true,
  noImplicitOverride: true,
  noFallthroughCasesInSwitch: true,
  noUnusedLocals: true,
  noUnusedParameters: true,
  allowUnusedLabels: false,
  allowUnreachableCode: false,
};

const PUBLISHED = [
  "mod.ts",
  "model/",
  "mcp/",
  "ai_sdk/",
  "harness/",
  "openai/",
  "otel/",
  "tools/",
  "kv/",
  "subagents/",
  "runtime/",
  "server/",
  "cli/",
  "demo/",
  "testing/",
  "examples/",
];

if (import.meta.main) {
  const root = new URL("..", import.meta.url).pathname;
  const config = JSON.parse(await Deno.readTextFile(`${root}deno.json`));
  config.compilerOptions = { ...config.compilerOptions, ...STRICT_OPTIONS };
  // Beside deno.json, so its relative paths (and the lock) resolve as they do there.
  const path = await Deno.makeTempFile({ dir: root, prefix: ".strict-", suffix: ".json" });
  try {
    await Deno.writeTextFile(path, JSON.stringify(config));
    const paths = Deno.args.length ? Deno.args : PUBLISHED;
    const { code } = await new Deno.Command(Deno.execPath(), {
      args: ["check", "--config", path, "--frozen", `--lock=${root}deno.lock`, ...paths],
      cwd: root,
    }).spawn().status;
    if (code !== 0) {
      console.error(
        `check:strict: reins's sources must also check with ${
          Object.keys(STRICT_OPTIONS).join(" and ")
        }`,
      );
    }
    Deno.exitCode = code;
  } finally {
    await Deno.remove(path);
  }
}
