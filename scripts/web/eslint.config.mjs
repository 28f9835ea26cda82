// ESLint for the HTML viewer's page (src/export/html/page/*.js) and its browser test driver
// (tests/axt/support/view-browser.mjs): the recommended rules, a few of style, and the rules
// that keep the page safe with untrusted text: no HTML parsing sinks (innerHTML and its kin),
// no code from strings, no inline style or handler attributes. The page's Content-Security-
// Policy and Trusted Types would stop such code in the browser; this stops it at review.
//
// The tools are installed into target/web by scripts/web-tools.sh (AXT_WEB_TOOLS names
// another place), not beside this file: the packages are found from there.
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

const tools = process.env.AXT_WEB_TOOLS
  ? pathToFileURL(process.env.AXT_WEB_TOOLS + "/")
  : new URL("../../target/web/", import.meta.url);
const require = createRequire(new URL("package.json", tools));
const js = require("@eslint/js");
const globals = require("globals");

const sinks = [
  { property: "innerHTML", message: "Build nodes and set textContent: the page never parses markup." },
  { property: "outerHTML", message: "Build nodes and set textContent: the page never parses markup." },
  { property: "insertAdjacentHTML", message: "Build nodes: the page never parses markup." },
  { property: "setHTMLUnsafe", message: "Build nodes: the page never parses markup." },
  { property: "createContextualFragment", message: "Build nodes: the page never parses markup." },
  { property: "parseFromString", message: "Build nodes: the page never parses markup." },
  { object: "document", property: "write", message: "Build nodes: the page never parses markup." },
  { object: "document", property: "writeln", message: "Build nodes: the page never parses markup." },
];

const syntax = [
  {
    selector: "CallExpression[callee.property.name='setAttribute'][arguments.0.type='Literal'][arguments.0.value=/^(on|style$|src|srcdoc$|formaction$)/i]",
    message: "No handler, style or source attribute: listeners with addEventListener, style in view.css.",
  },
  {
    selector: "CallExpression[callee.name=/^(setTimeout|setInterval)$/][arguments.0.type='Literal']",
    message: "Timers take functions, not code in strings.",
  },
];

const shared = {
  ...js.configs.recommended.rules,
  "no-eval": "error",
  "no-implied-eval": "error",
  "no-new-func": "error",
  "no-restricted-properties": ["error", ...sinks],
  "no-restricted-syntax": ["error", ...syntax],
  eqeqeq: "error",
  curly: "error",
  "prefer-const": "error",
  "no-var": "error",
  "no-shadow": "error",
};

export default [
  {
    files: ["src/export/html/page/*.js"],
    ignores: ["src/export/html/page/core.js"],
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: "script",
      globals: { ...globals.browser, AxtView: "readonly" },
    },
    rules: { ...shared, strict: ["error", "global"] },
  },
  {
    // core.js creates the namespace the others read.
    files: ["src/export/html/page/core.js"],
    languageOptions: { ecmaVersion: 2022, sourceType: "script", globals: { ...globals.browser } },
    rules: {
      ...shared,
      strict: ["error", "global"],
      "no-unused-vars": ["error", { varsIgnorePattern: "^AxtView$" }],
    },
  },
  {
    // Node, and the functions it hands the page to run (page.evaluate) see a browser's.
    files: ["tests/axt/support/*.mjs"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: { ...globals.node, ...globals.browser } },
    rules: shared,
  },
];
