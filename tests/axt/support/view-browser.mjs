// Drives Debian's Chromium (headless, through playwright-core) over pages `axt view` wrote,
// for tests/axt/view.rs, and reports what it saw as JSON on stdout; the Rust test asserts.
//
//   node view-browser.mjs PLAN.json
//
// PLAN: {"playwright": "<playwright-core's index.mjs>", "chromium": "/usr/bin/chromium",
//        "timeout": ms (30,000 unless given),
//        "cases": [{"name", "url", "actions": [...]}]}. Each case gets a fresh browser
// profile (a new --user-data-dir) and records, from before the page's first script runs:
// console messages, uncaught errors, dialogs (alert, confirm, ...), every request other than
// the page's own file, and Content-Security-Policy violations. Actions, in order:
//   {"do": "counts"}                     runs, steps, tool calls, messages, rows in the DOM
//   {"do": "elements"}                   elements a hostile page would add (img, iframe, ...)
//   {"do": "search", "query": Q}         type Q, wait for the matches, go to the first
//   {"do": "goto", "hash": H}            open url + H (a fresh load with "fresh": true);
//                                        report the event it shows and how long it took
//   {"do": "key", "key": K}              press K; report the address's fragment
//   {"do": "click", "selector": S}       click the first element S selects
//   {"do": "fill", "selector": S, "text": T}  type T into the field S selects
//   {"do": "rows"}                       the index's visible rows: their runs' ids, in order
//   {"do": "items"}                      a run's items (messages, calls, problems, ...) in
//                                        page order: "class line"
//   {"do": "text", "contains": [S...]}   whether the page's text holds each S literally
//   {"do": "screenshot", "path": P}      a PNG of the viewport
//   {"do": "timing"}                     time to the page's ready mark, and its size
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const plan = JSON.parse(readFileSync(process.argv[2], "utf8"));
// How long a page may take to be ready, find or show something (the plan's, in ms).
const timeout = plan.timeout || 30000;
const { chromium } = await import(pathToFileURL(plan.playwright).href);

const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

async function ready(page) {
  await page.waitForSelector("body[data-ready]", { timeout });
}

async function runCase(item) {
  const profile = mkdtempSync(join(tmpdir(), "axt-view-profile-"));
  const seen = { name: item.name, console: [], errors: [], dialogs: [], requests: [], csp: [], results: [] };
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: plan.chromium,
    headless: true,
    args: ARGS,
    viewport: { width: item.width || 1400, height: item.height || 1000 },
  });
  try {
    const page = context.pages()[0] || (await context.newPage());
    const own = new URL(item.url).href.replace(/#.*/, "");
    page.on("console", (m) => seen.console.push({ type: m.type(), text: m.text() }));
    page.on("pageerror", (e) => seen.errors.push(String(e && e.message)));
    page.on("dialog", async (d) => {
      seen.dialogs.push(d.type() + ": " + d.message());
      await d.dismiss();
    });
    context.on("request", (r) => {
      if (r.url().replace(/#.*/, "") !== own) {
        seen.requests.push(r.url());
      }
    });
    // Before any script of the page: a CSP violation anywhere is recorded.
    await context.addInitScript(() => {
      window.__axtCsp = [];
      document.addEventListener("securitypolicyviolation", (e) => {
        window.__axtCsp.push(e.violatedDirective + " " + (e.blockedURI || "") + " " + (e.sample || ""));
      });
    });
    const started = Date.now();
    await page.goto(item.url);
    await ready(page);
    const loaded = Date.now() - started;
    for (const action of item.actions) {
      seen.results.push(await act(page, item, action, loaded));
    }
    seen.csp = await page.evaluate(() => window.__axtCsp);
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
  return seen;
}

async function act(page, item, action, loaded) {
  switch (action.do) {
    case "counts":
      return page.evaluate(() => ({
        do: "counts",
        view: document.querySelector(".index-view") ? "index" : "run",
        runs: document.querySelectorAll("section.run").length,
        steps: document.querySelectorAll(".step").length,
        tools: document.querySelectorAll(".tool.nav-item").length,
        failedTools: document.querySelectorAll(".tool.nav-item.failed").length,
        messages: document.querySelectorAll(".msg").length,
        rows: document.querySelectorAll("table.runs tbody tr").length,
        problems: document.querySelectorAll(".problem").length,
        title: document.title,
      }));
    case "elements":
      return page.evaluate(() => ({
        do: "elements",
        scripts: document.querySelectorAll("script").length,
        codeScripts: document.querySelectorAll("script:not([type])").length,
        styles: document.querySelectorAll("style").length,
        added: document.querySelectorAll("img, iframe, object, embed, link, video, audio, svg image, base, form, meta[http-equiv=refresh]").length,
        javascriptLinks: Array.from(document.querySelectorAll("a[href]")).filter((a) => !/^(https?:|mailto:|#|file:)/.test(a.getAttribute("href"))).length,
        inlineHandlers: Array.from(document.querySelectorAll("*")).filter((n) => Array.from(n.attributes).some((a) => a.name.startsWith("on"))).length,
        styleAttributes: document.querySelectorAll("[style]").length,
        bodyDisplay: getComputedStyle(document.body).display,
        pwned: typeof window.__pwned,
      }));
    case "search": {
      const started = Date.now();
      await page.fill("#search", action.query);
      await page.waitForFunction(() => document.body.dataset.matches !== undefined && document.body.dataset.matches !== "", null, { timeout });
      await page.press("#search", "Enter");
      await page.waitForFunction(() => document.querySelector("mark.found") || document.body.dataset.matches === "0", null, { timeout });
      const ms = Date.now() - started;
      return page.evaluate((took) => {
        const mark = document.querySelector("mark.found");
        const event = mark && mark.closest("[data-seq]");
        const run = mark && mark.closest("section.run");
        return {
          do: "search",
          ms: took,
          matches: Number(document.body.dataset.matches),
          counter: document.getElementById("search-count").textContent,
          marked: mark ? mark.textContent : null,
          seq: event ? Number(event.dataset.seq) : null,
          run: run ? Number(run.dataset.run) : null,
        };
      }, ms);
    }
    case "goto": {
      // The mark of the last link is taken off, so the next one is waited for.
      await page.evaluate(() => document.querySelectorAll(".target").forEach((n) => n.classList.remove("target")));
      if (action.fresh) {
        await page.goto("about:blank");
      }
      const started = Date.now();
      await page.goto(item.url.replace(/#.*/, "") + action.hash);
      await ready(page);
      await page.waitForFunction(() => document.querySelector(".target") || document.querySelector(".problem"), null, { timeout });
      const ms = Date.now() - started;
      return page.evaluate((took) => {
        const target = document.querySelector(".target");
        const box = target && target.getBoundingClientRect();
        const run = target && target.closest("section.run");
        return {
          do: "goto",
          ms: took,
          seq: target && target.dataset.seq ? Number(target.dataset.seq) : null,
          line: target && target.dataset.line ? Number(target.dataset.line) : null,
          run: run ? Number(run.dataset.run) : null,
          text: target ? target.textContent.slice(0, 4000) : null,
          inView: Boolean(box && box.bottom > 0 && box.top < window.innerHeight),
        };
      }, ms);
    }
    case "key": {
      await page.keyboard.press(action.key);
      await page.waitForTimeout(50);
      return page.evaluate(() => ({ do: "key", hash: location.hash, view: document.querySelector(".index-view") ? "index" : "run",
        cursor: document.querySelector(".cursor") ? document.querySelector(".cursor").tagName : null,
        theme: document.documentElement.dataset.theme + " (" + document.getElementById("theme").textContent + "), background " +
          getComputedStyle(document.body).backgroundColor }));
    }
    case "click":
      await page.click(action.selector);
      await page.waitForTimeout(50);
      return { do: "click", hash: await page.evaluate(() => location.hash) };
    case "fill":
      await page.fill(action.selector, action.text);
      await page.waitForTimeout(50);
      return { do: "fill" };
    case "items":
      return page.evaluate(() => ({
        do: "items",
        items: Array.from(document.querySelectorAll("#main .nav-item")).map((n) =>
          n.classList[0] + " " + (n.dataset.line || "")),
      }));
    case "rows":
      return page.evaluate(() => ({
        do: "rows",
        ids: Array.from(document.querySelectorAll("table.runs tbody tr:not([hidden])"))
          .map((tr) => tr.querySelector(".sub").textContent.split(" · ")[0]),
      }));
    case "text": {
      const text = await page.evaluate(() => document.body.innerText + "\n" + document.title);
      return { do: "text", contains: action.contains.map((s) => text.includes(s)) };
    }
    case "screenshot":
      await page.screenshot({ path: action.path, fullPage: Boolean(action.full) });
      return { do: "screenshot", path: action.path };
    case "timing": {
      const marks = await page.evaluate(() => {
        const nav = performance.getEntriesByType("navigation")[0];
        const mark = performance.getEntriesByName("axt-ready")[0];
        return { readyMs: mark ? mark.startTime : null, domContentLoadedMs: nav ? nav.domContentLoadedEventEnd : null };
      });
      return { do: "timing", wallMs: loaded, ...marks };
    }
    default:
      throw new Error("unknown action " + action.do);
  }
}

const out = [];
for (const item of plan.cases) {
  out.push(await runCase(item));
}
process.stdout.write(JSON.stringify(out, null, 1) + "\n");
