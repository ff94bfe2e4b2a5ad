/**
 * The page's scripts and stylesheet, real `.js` and `.css` files under
 * `static/`, loaded as text imports: no build step, no file read at run time
 * (so they load when the package is imported from a remote URL too). Deno
 * 2.5, the Deno Deploy runtime, needs `"unstable": ["raw-imports"]` in
 * deno.json for them.
 *
 * The scripts are ES modules, each served under its own name: the page loads
 * `main.js` (`<script type="module">`), which imports the others by
 * relative URL. The stylesheets are joined, in this order, into the one
 * `inspector.css` the page links.
 *
 * @module
 */
import ACTIVITY_JS from "./static/activity.js" with { type: "text" };
import API_JS from "./static/api.js" with { type: "text" };
import BUDGET_JS from "./static/budget.js" with { type: "text" };
import CONTROLS_JS from "./static/controls.js" with { type: "text" };
import CONVERSATION_JS from "./static/conversation.js" with { type: "text" };
import EVENTS_JS from "./static/events.js" with { type: "text" };
import MAIN_JS from "./static/main.js" with { type: "text" };
import NEW_RUN_JS from "./static/new_run.js" with { type: "text" };
import RUN_PAGE_JS from "./static/run_page.js" with { type: "text" };
import TREE_JS from "./static/tree.js" with { type: "text" };
import TYPING_JS from "./static/typing.js" with { type: "text" };
import WORDS_JS from "./static/words.js" with { type: "text" };
import BASE_CSS from "./static/base.css" with { type: "text" };
import RUNS_CSS from "./static/runs.css" with { type: "text" };
import CONTROLS_CSS from "./static/controls.css" with { type: "text" };
import TREE_CSS from "./static/tree.css" with { type: "text" };
import ACTIVITY_CSS from "./static/activity.css" with { type: "text" };
import TRANSCRIPT_CSS from "./static/transcript.css" with { type: "text" };
import CONVERSATION_CSS from "./static/conversation.css" with { type: "text" };
import BUDGET_CSS from "./static/budget.css" with { type: "text" };
import FIT_CSS from "./static/fit.css" with { type: "text" };
import NEW_RUN_CSS from "./static/new_run.css" with { type: "text" };

const JS = "text/javascript; charset=utf-8";

/** The page's script modules, by file name: `main.js` is the entry. */
const SCRIPTS: Record<string, string> = {
  "activity.js": ACTIVITY_JS,
  "api.js": API_JS,
  "budget.js": BUDGET_JS,
  "controls.js": CONTROLS_JS,
  "conversation.js": CONVERSATION_JS,
  "events.js": EVENTS_JS,
  "main.js": MAIN_JS,
  "new_run.js": NEW_RUN_JS,
  "run_page.js": RUN_PAGE_JS,
  "tree.js": TREE_JS,
  "typing.js": TYPING_JS,
  "words.js": WORDS_JS,
};

// Later rules win ties, so the order is the cascade's.
const STYLESHEET = [
  BASE_CSS,
  RUNS_CSS,
  CONTROLS_CSS,
  TREE_CSS,
  ACTIVITY_CSS,
  TRANSCRIPT_CSS,
  CONVERSATION_CSS,
  BUDGET_CSS,
  NEW_RUN_CSS,
  FIT_CSS, // last: it overrides the others on narrow windows
].join("\n");

/** The assets, by the name they are served under (`/ui/static/<name>`), with their type. */
export const ASSETS: Readonly<Record<string, { type: string; text: string }>> = {
  ...Object.fromEntries(
    Object.entries(SCRIPTS).map(([name, text]) => [name, { type: JS, text }]),
  ),
  "inspector.css": { type: "text/css; charset=utf-8", text: STYLESHEET },
};
