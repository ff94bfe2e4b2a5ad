// Records readable by every Deno >= 2.5: one run of every kind of record the
// kv/ layer writes, stored by one Deno version and read by the other, both
// ways (2.9.x -> 2.5.0 and 2.5.0 -> 2.9.x). Deno KV stores values other than
// bytes with V8's serializer, which an older V8 cannot read.
import assert from "node:assert/strict";
import { deno25, ROOT } from "./deploy_sim_helpers.ts";

async function child(bin: string, mode: "write" | "read", file: string) {
  const out = await new Deno.Command(bin, {
    cwd: ROOT,
    args: [
      "run",
      "-A",
      "--config",
      "deno.json",
      "--frozen",
      "tests/fixtures/kv_versions_child.ts",
      mode,
      file,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const td = new TextDecoder();
  const stderr = td.decode(out.stderr);
  assert.equal(out.code, 0, `${mode} under ${bin}:\n${stderr}`);
  return JSON.parse(td.decode(out.stdout).trim().split("\n").at(-1)!);
}

const pairs = [["new", "2.5.0"], ["2.5.0", "new"]] as const;

for (const [writer, reader] of pairs) {
  Deno.test(`every kind of record written by Deno ${writer} is read by Deno ${reader}`, async () => {
    const old = await deno25();
    const bin = (v: string) => v === "2.5.0" ? old : Deno.execPath();
    const dir = await Deno.makeTempDir({ prefix: "reins-kv-versions-" });
    try {
      const wrote = await child(bin(writer), "write", `${dir}/runs.sqlite`);
      const read = await child(bin(reader), "read", `${dir}/runs.sqlite`);
      assert.notEqual(wrote.version, read.version);
      const { version: _w, ...expected } = wrote;
      const { version: _r, ...got } = read;
      assert.deepEqual(got, expected);
      assert.equal(expected.events.length, 1);
      assert.equal(expected.lease, "writer");
      assert.equal(expected.stop, "enough");
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
}
