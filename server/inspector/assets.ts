/**
 * The page's script and stylesheet, real `.js` and `.css` files next to this
 * module, loaded as text imports: no build step, no file read at run time
 * (so they load when the package is imported from a remote URL too). Deno
 * 2.5, the Deno Deploy runtime, needs `"unstable": ["raw-imports"]` in
 * deno.json for them.
 *
 * @module
 */
import INSPECTOR_JS from "./inspector.js" with { type: "text" };
import INSPECTOR_CSS from "./inspector.css" with { type: "text" };

/** The assets, by the name they are served under (`/ui/static/<name>`), with their type. */
export const ASSETS: Readonly<Record<string, { type: string; text: string }>> = {
  "inspector.js": { type: "text/javascript; charset=utf-8", text: INSPECTOR_JS },
  "inspector.css": { type: "text/css; charset=utf-8", text: INSPECTOR_CSS },
};
