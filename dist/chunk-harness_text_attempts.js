// harness/text_attempts.ts
var attemptText = (function attemptText(request) {
  const { onText, onReset } = request;
  if (!onText) return UNWATCHED;
  let shown = false;
  return {
    onText: (delta) => {
      if (!delta) return;
      shown = true;
      try {
        onText(delta);
      } catch {
      }
    },
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
var UNWATCHED = {
  onText: void 0,
  retrying() {
  }
};

export {
  attemptText
};
