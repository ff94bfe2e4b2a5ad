// harness/schema_issue.ts
var NON_NEGATIVE_NUMBER = "expected a non-negative number";
var AN_OBJECT = "expected an object";
function formatPath(path, start = "") {
  let out = start;
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else if (typeof key === "string" && /^[A-Za-z_$][\w$]*$/.test(key)) {
      out += out ? `.${key}` : key;
    } else out += `[${JSON.stringify(String(key))}]`;
  }
  return out;
}
function issueLine(issue, start = "", input) {
  const path = formatPath(issue.path, start);
  const where = path ? `${path}: ` : "";
  if (issue.code === "unrecognized_keys") {
    const keys = issue.keys.map((k) => `"${k}"`).join(", ");
    return `${where}unknown key${issue.keys.length > 1 ? "s" : ""} ${keys}`;
  }
  const got = input === void 0 || issue.message.includes("received") ? "" : gotText(valueAt(input, issue.path));
  return `${where}${issue.message}${got}`;
}
function valueAt(input, path) {
  let value = input;
  for (const key of path) {
    if (typeof value !== "object" || value === null) return void 0;
    value = value[key];
  }
  return value;
}
function gotText(value) {
  if (typeof value === "string") {
    const quoted = JSON.stringify(value);
    return `, got ${quoted.length > 60 ? `${quoted.slice(0, 57)}..."` : quoted}`;
  }
  if (typeof value === "function") return ", got a function";
  return typeof value === "object" && value !== null ? "" : `, got ${String(value)}`;
}

export {
  NON_NEGATIVE_NUMBER,
  AN_OBJECT,
  issueLine
};
