// harness/message_of.ts
var messageOf = (function messageOf(e) {
  if (e instanceof Error) return e.message || e.name;
  if (typeof e === "string") return e;
  try {
    return JSON.stringify(e) ?? String(e);
  } catch {
    return String(e);
  }
});

export {
  messageOf
};
