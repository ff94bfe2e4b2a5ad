// harness/text.ts
var cutText = (function cutText(text, max) {
  if (text.length <= max) return text;
  let n = Math.max(0, Math.floor(max));
  const code = text.charCodeAt(n - 1);
  if (n > 0 && code >= 55296 && code <= 56319) n -= 1;
  return text.slice(0, n);
});

export {
  cutText
};
