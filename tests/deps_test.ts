// `deno task` downloads every npm package of deno.json "imports" and of deno.lock before it
// runs any task (denoland/deno#30887). So both hold only what the library and the apps
// import, and test-only packages live in deno.dev.lock (README, "Dependencies").
import assert from "node:assert/strict";
import { ROOT } from "./run_script.ts";

const readJson = async (file: string) => JSON.parse(await Deno.readTextFile(`${ROOT}${file}`));
const config = await readJson("deno.json");
const lock = await readJson("deno.lock");
const devLock = await readJson("deno.dev.lock");

/** "npm:/hono@4.13.19/" and "npm:hono@4.13.19" both name "npm:hono@4.13.19". */
const packageOf = (specifier: string) => specifier.replace(/^npm:\/?/, "npm:").replace(/\/$/, "");

/** The sources outside tests/ and bench/: the library, the apps, the examples. */
async function shippedSources(dir = ROOT): Promise<string[]> {
  const texts: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}${entry.name}`;
    if (entry.isDirectory && !/^(\.|tests$|bench$|docs$|node_modules$)/.test(entry.name)) {
      texts.push(...await shippedSources(`${path}/`));
    } else if (entry.isFile && /\.(ts|js)$/.test(entry.name)) {
      texts.push(await Deno.readTextFile(path));
    }
  }
  return texts;
}

Deno.test("every deno.json import is used outside tests/ and bench/", async () => {
  const sources = (await shippedSources()).join("\n");
  for (const name of Object.keys(config.imports)) {
    const bare = name.replace(/\/$/, "");
    const quoted = new RegExp(`(from|import)\\s*\\(?\\s*"${bare.replace(/[/.]/g, "\\$&")}[/"]`);
    assert.ok(
      quoted.test(sources),
      `"${name}" is in deno.json imports but only tests or benchmarks use it: ` +
        `import it there as a pinned npm: specifier instead (README, "Dependencies")`,
    );
  }
});

Deno.test("the library, the apps and the examples import no npm: specifier inline", async () => {
  // The lint rule no-import-prefix is off so that tests and benchmarks can pin theirs inline;
  // this keeps it for everything else: those imports go through deno.json.
  const inline = /(from|import)\s*\(?\s*"(npm|jsr|https?):[^"]*"/g;
  const found = (await shippedSources()).flatMap((text) => [...text.matchAll(inline)]);
  assert.deepEqual(found.map((m) => m[0]), []);
});

Deno.test("deno.lock locks only what deno.json imports; deno.dev.lock locks it the same", () => {
  const imported = new Set(Object.values<string>(config.imports).map(packageOf));
  for (const specifier of Object.keys(lock.specifiers)) {
    assert.ok(
      imported.has(specifier),
      `deno.lock has ${specifier}, which deno.json does not import: a test or a benchmark ` +
        `ran without --lock=deno.dev.lock; restore deno.lock and run \`deno task lock\``,
    );
  }
  for (const [specifier, version] of Object.entries(lock.specifiers)) {
    assert.equal(devLock.specifiers[specifier], version, `deno.dev.lock: ${specifier}`);
  }
  for (const [id, entry] of Object.entries<{ integrity: string }>(lock.npm)) {
    assert.equal(devLock.npm[id]?.integrity, entry.integrity, `deno.dev.lock: ${id}`);
  }
});
