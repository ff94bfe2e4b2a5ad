// The SSE reader under the streamed model client: events split anywhere
// across reads (a "\r\n" between two reads, a multi-byte character cut in
// two, a chunk larger than its buffer), read through a BYOB reader (a byte
// stream, as fetch's bodies are) or the default one, an abort mid-read, a
// body that breaks.
import assert from "node:assert/strict";
import { readSseData } from "../openai/sse_reader.ts";

const bytes = (s: string) => new TextEncoder().encode(s);

/** A body giving `pieces` one read each: a byte stream, or a plain one. */
function body(pieces: Uint8Array[], byteStream: boolean): ReadableStream<Uint8Array> {
  let i = 0;
  if (!byteStream) {
    return new ReadableStream<Uint8Array>({
      pull: (c) => void (i < pieces.length ? c.enqueue(pieces[i++]) : c.close()),
    });
  }
  return new ReadableStream({
    type: "bytes",
    pull(c) {
      if (i < pieces.length) c.enqueue(pieces[i++]);
      else {
        c.close();
        c.byobRequest?.respond(0);
      }
    },
  });
}

async function collect(stream: ReadableStream<Uint8Array>): Promise<string[]> {
  const out: string[] = [];
  await readSseData(stream, (d) => void out.push(d), {
    signal: new AbortController().signal,
    broke: (e) => e,
  });
  return out;
}

const TEXT =
  'data: {"a":"é"}\r\n\r\n: comment\nevent: x\ndata: one\ndata: two\n\ndata:last\r\rdata: tail\n';
const WANT = ['{"a":"é"}', "one\ntwo", "last", "tail"];

for (const byteStream of [true, false]) {
  const kind = byteStream ? "a byte stream (BYOB)" : "a plain stream";
  Deno.test(`readSseData: ${kind} split at every byte gives the same events`, async () => {
    const all = bytes(TEXT);
    for (let cut = 1; cut < all.length; cut++) {
      const got = await collect(body([all.slice(0, cut), all.slice(cut)], byteStream));
      assert.deepEqual(got, WANT, `cut at ${cut}`);
    }
    const single = [...all].map((b) => new Uint8Array([b]));
    assert.deepEqual(await collect(body(single, byteStream)), WANT);
  });
}

Deno.test("readSseData: an event whose last line the body's end cut short is dropped", async () => {
  // Its lines all ended: dispatched without the blank line some servers omit.
  assert.deepEqual(await collect(body([bytes("data: a\n\ndata: b\n")], true)), ["a", "b"]);
  // Cut mid-line: half a JSON text is not an event (before: it was, and the reply "malformed").
  const cut = bytes('data: {"x":1}\n\ndata: {"choices":[{"delta":{"content":"hel');
  assert.deepEqual(await collect(body([cut], true)), ['{"x":1}']);
  assert.deepEqual(await collect(body([bytes("data: one\ndata: tw")], false)), []);
  // A last line that is whole, only its line break missing: kept (servers that omit it).
  assert.deepEqual(await collect(body([bytes('data: a\n\ndata: {"x":1}')], true)), [
    "a",
    '{"x":1}',
  ]);
  assert.deepEqual(await collect(body([bytes("data: [DONE]")], false)), ["[DONE]"]);
  // JSON that parses is not whole unless an object or array: `12` may be cut from `123`.
  assert.deepEqual(await collect(body([bytes("data: 12")], true)), []);
  assert.deepEqual(await collect(body([bytes('data: {"a":\ndata: 1')], true)), []);
});

Deno.test("readSseData: a chunk larger than the reader's buffer arrives whole", async () => {
  const big = "x".repeat(100_000);
  const got = await collect(body([bytes(`data: ${big}\n\ndata: b\n\n`)], true));
  assert.deepEqual(got, [big, "b"]);
});

Deno.test("readSseData: stops reading once onData says it is done", async () => {
  let pulls = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull: (c) => void (pulls++, c.enqueue(bytes("data: [DONE]\n\n"))),
  });
  const seen: string[] = [];
  await readSseData(stream, (d) => (seen.push(d), true), {
    signal: new AbortController().signal,
    broke: (e) => e,
  });
  assert.deepEqual(seen, ["[DONE]"]);
  assert.ok(pulls <= 2, `pulled ${pulls} times`);
});

Deno.test("readSseData: an abort mid-read rejects with its reason and cancels the body", async () => {
  for (const byteStream of [true, false]) {
    let cancelled: unknown;
    const source = {
      start: (c: { enqueue(b: Uint8Array): void }) => void c.enqueue(bytes("data: a\n\n")),
      cancel: (why: unknown) => void (cancelled = why),
    };
    const stream: ReadableStream<Uint8Array> = byteStream
      ? new ReadableStream({ type: "bytes", ...source })
      : new ReadableStream<Uint8Array>(source);
    const ac = new AbortController();
    const seen: string[] = [];
    const reading = readSseData(stream, (d) => void seen.push(d), {
      signal: ac.signal,
      broke: (e) => e,
    });
    setTimeout(() => ac.abort(new Error("stop")), 10);
    await assert.rejects(reading, /stop/);
    assert.deepEqual(seen, ["a"]);
    assert.equal((cancelled as Error)?.message, "stop");
  }
});

Deno.test("readSseData: a body that breaks rejects with what `broke` builds", async () => {
  const stream = new ReadableStream<Uint8Array>({
    start(c) {
      c.enqueue(bytes("data: a\n\n"));
      c.error(new Error("reset"));
    },
  });
  await assert.rejects(
    readSseData(stream, () => {}, {
      signal: new AbortController().signal,
      broke: (e) => new Error(`broke: ${(e as Error).message}`),
    }),
    /broke: reset/,
  );
});

Deno.test("readSseData: an already aborted signal rejects before reading", async () => {
  const ac = new AbortController();
  ac.abort(new Error("before"));
  await assert.rejects(
    readSseData(new Blob(["data: a\n\n"]).stream(), () => assert.fail("read"), {
      signal: ac.signal,
      broke: (e) => e,
    }),
    /before/,
  );
});
