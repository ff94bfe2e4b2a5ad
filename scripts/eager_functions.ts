/**
 * Marks a bundled file's top-level functions for eager compilation, so a
 * fresh process finds them in Deno's code cache instead of compiling each on
 * its first call (issue 29).
 *
 * Why: V8 compiles a function declaration lazily, on its first call, and
 * Deno's code cache for a module holds what was compiled when the module was
 * compiled: the top-level code, not the ~90 functions a run's first turn
 * calls. A function expression in parentheses is compiled eagerly (V8's
 * "PIFE" heuristic), so `function f(…) {…}` becomes `var f = (function f(…)
 * {…});`: the same function and name, compiled with the module and cached.
 * Measured on a fresh process (`plan`, three turns, code cache warm): the first
 * run 2.1 ms faster (16.0 → 13.9 ms), the import within noise. Applied to the
 * core entry's files only (scripts/bundle.ts): eager everywhere, importing
 * `./server` took 1.5 ms (6 ms without a code cache) and 1 MB more.
 *
 * Not every module of that entry: the functions of `lazy` modules (those no
 * plain turn calls: compaction, forks, agents, typed output, approvals,
 * recovery) keep their declarations. Compiled eagerly, they made a fresh
 * process's peak RSS 0.8-1.0 MB higher and its first run no faster.
 *
 * The bundler writes each top-level function from a line starting
 * `function name(` (or `async function`, `function*`) to the first line that
 * is `}` alone; a function it cannot close that way is an error, not a guess.
 * A declaration is hoisted and a `var` is not, so a function called while its
 * module is evaluated, above its definition, would break the import:
 * tests/dist_test.ts imports every entry point.
 *
 * @module
 */

const START = /^(async )?function(\*)? ?([A-Za-z_$][\w$]*)\(/;

/** The line the bundler heads each module's code with: `// harness/run.ts`. */
const MODULE = /^\/\/ ([\w/]+\.ts)$/;

/**
 * `code` with each top-level function declaration made an eagerly compiled
 * function expression of the same name, except in the modules `lazy` names
 * (by their source path); `wrapped` counts them, `modules` lists the modules
 * the code holds.
 *
 * @example
 * ```ts
 * import { eagerFunctions } from "./eager_functions.ts";
 * const { code } = eagerFunctions("function f(a) {\n  return a;\n}\nexport { f };\n");
 * console.log(code.split("\n")[0]); // var f = (function f(a) {
 * ```
 */
export function eagerFunctions(
  code: string,
  lazy: ReadonlySet<string> = new Set(),
): { code: string; wrapped: number; modules: string[] } {
  const lines = code.split("\n");
  const modules: string[] = [];
  let wrapped = 0;
  let module = "";
  for (let i = 0; i < lines.length; i++) {
    const heading = MODULE.exec(lines[i]!)?.[1];
    if (heading) modules.push(module = heading);
    const name = START.exec(lines[i]!)?.[3];
    if (!name) continue;
    const end = lines.indexOf("}", i);
    if (end < 0) {
      throw new SyntaxError(`eagerFunctions: no end for function ${name} (line ${i + 1})`);
    }
    if (lazy.has(module)) {
      i = end; // its body is not read for headings
      continue;
    }
    lines[i] = `var ${name} = (${lines[i]}`;
    lines[end] = "});";
    wrapped++;
    i = end;
  }
  return { code: lines.join("\n"), wrapped, modules };
}
