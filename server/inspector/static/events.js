// A run's events: fetch streaming of the SSE endpoint (the token goes in a
// header), or one poll of what is stored. Each event goes to `onEvent(s, seq, ev)`.
import { api, enc, setLive, sleep } from "./api.js";

let unloading = false;
globalThis.addEventListener("pagehide", function () {
  unloading = true;
});

function parseBlocks(s, text, onEvent) {
  text.split("\n\n").forEach(function (block) {
    let id = null;
    const data = [];
    block.split("\n").forEach(function (line) {
      if (line.slice(0, 3) === "id:") id = line.slice(3).trim();
      else if (line.slice(0, 5) === "data:") data.push(line.slice(5).replace(/^ /, ""));
    });
    if (id === null || !data.length) return;
    let ev;
    try {
      ev = JSON.parse(data.join("\n"));
    } catch (_) {
      return;
    }
    onEvent(s, Number(id), ev);
  });
}

/** Follows the events of source `s` after `s.after`, reconnecting until the page goes. */
export async function stream(s, onEvent) {
  s.streaming = true;
  while (!unloading) {
    try {
      const res = await api("/runs/" + enc(s.runId) + "/events?after=" + s.after, {
        headers: { accept: "text/event-stream" },
      });
      if (!res.ok) {
        const err = await res.json().catch(function () {
          return null;
        });
        throw new Error((err && err.error && err.error.message) || "HTTP " + res.status);
      }
      setLive("live", true);
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let buf = "";
      for (;;) {
        const chunk = await reader.read();
        if (chunk.done) break;
        buf += chunk.value.replace(/\r\n?/g, "\n");
        const at = buf.lastIndexOf("\n\n");
        if (at >= 0) {
          parseBlocks(s, buf.slice(0, at), onEvent);
          buf = buf.slice(at + 2);
        }
      }
    } catch (e) {
      if (unloading) return;
      setLive("reconnecting: " + e.message, false);
    }
    await sleep(1000);
  }
}

/** Reads the events of source `s` stored after `s.after`, once. */
export async function poll(s, onEvent) {
  if (s.polling) return;
  s.polling = true;
  try {
    const res = await api("/runs/" + enc(s.runId) + "/events?follow=false&after=" + s.after);
    if (res.ok) parseBlocks(s, (await res.text()).replace(/\r\n?/g, "\n"), onEvent);
  } catch (_) {
    // The next refresh polls again.
  } finally {
    s.polling = false;
  }
}
