// harness/text_attempts.ts
var attemptText = (function attemptText(request) {
  const { onText, onReset } = request;
  let shown = false;
  return {
    onText: onText && ((delta) => {
      if (!delta) return;
      shown = true;
      try {
        onText(delta);
      } catch {
      }
    }),
    retrying() {
      if (!shown) return;
      shown = false;
      try {
        onReset?.();
      } catch {
      }
    }
  };
});

export {
  attemptText
};
