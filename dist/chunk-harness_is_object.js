// harness/is_object.ts
var isObject = (function isObject(v) {
  return typeof v === "object" && v !== null && !Array.isArray(v);
});

export {
  isObject
};
