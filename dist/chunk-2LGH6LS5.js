import {
  __name
} from "./chunk-OSOEW62Q.js";

// harness/trace.ts
function memorySink() {
  const events = [];
  return {
    sink: /* @__PURE__ */ __name((e) => void events.push(e), "sink"),
    events
  };
}
__name(memorySink, "memorySink");
function jsonlSink(write) {
  return (event) => write(JSON.stringify(event) + "\n");
}
__name(jsonlSink, "jsonlSink");
function fileSink(path) {
  return jsonlSink((line) => Deno.writeTextFile(path, line, {
    append: true
  }));
}
__name(fileSink, "fileSink");
function combineSinks(...sinks) {
  const list = sinks.filter((s) => !!s);
  return async (event) => {
    for (const s of list) await s(event);
  };
}
__name(combineSinks, "combineSinks");

export {
  memorySink,
  jsonlSink,
  fileSink,
  combineSinks
};
