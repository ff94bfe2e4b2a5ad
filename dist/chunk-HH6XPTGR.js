// harness/trace.ts
function memorySink() {
  const events = [];
  return {
    sink: (e) => void events.push(e),
    events
  };
}
function jsonlSink(write) {
  return (event) => write(JSON.stringify(event) + "\n");
}
function fileSink(path) {
  return jsonlSink((line) => Deno.writeTextFile(path, line, {
    append: true
  }));
}
function combineSinks(...sinks) {
  const list = sinks.filter((s) => !!s);
  return async (event) => {
    for (const s of list) await s(event);
  };
}

export {
  memorySink,
  jsonlSink,
  fileSink,
  combineSinks
};
