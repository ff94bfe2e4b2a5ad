/**
 * A view of a KV handle counting its commits, for the benches that report
 * commits. Imports nothing, so a fresh-process bench child can load it.
 *
 * @module
 */

/** A view of `kv` counting its commits (atomics, and bare sets and deletes). */
export function counting(kv: Deno.Kv): { kv: Deno.Kv; commits: { n: number } } {
  const commits = { n: 0 };
  const view = new Proxy(kv, {
    get(target, prop) {
      const v = Reflect.get(target, prop, target);
      if (typeof v !== "function") return v;
      if (prop === "set" || prop === "delete") {
        return (...a: unknown[]) => (commits.n++, v.apply(target, a));
      }
      if (prop !== "atomic") return v.bind(target);
      return () => {
        const op = target.atomic();
        const wrapped: Deno.AtomicOperation = new Proxy(op, {
          get(t, p) {
            const f = Reflect.get(t, p, t);
            if (typeof f !== "function") return f;
            return (...a: unknown[]) => {
              if (p === "commit") commits.n++;
              const r = f.apply(t, a);
              return r === t ? wrapped : r;
            };
          },
        });
        return wrapped;
      };
    },
  });
  return { kv: view, commits };
}
