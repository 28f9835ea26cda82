/* axt view, main: starts the page. Routing on the address's fragment, the theme toggle
   (light, dark, or the system's), the keys, and the marks a test or a person can read:
   `data-ready` on <body> once the first view is drawn, and a performance mark "axt-ready". */
"use strict";

(function (A) {
  const THEMES = ["auto", "dark", "light"];
  const STORE = "axt-view-theme";

  const systemDark = window.matchMedia("(prefers-color-scheme: dark)");

  /** Applies a choice: `auto` follows the system's preference, as it changes too. */
  function theme(next) {
    const dark = next === "dark" || (next === "auto" && systemDark.matches);
    document.documentElement.dataset.theme = dark ? "dark" : "light";
    document.getElementById("theme").textContent = next;
    try {
      localStorage.setItem(STORE, next);
    } catch {
      // A page opened from disk may have no storage: the choice lasts this visit.
    }
  }

  function savedTheme() {
    try {
      const saved = localStorage.getItem(STORE);
      return THEMES.includes(saved) ? saved : "auto";
    } catch {
      return "auto";
    }
  }

  function cycleTheme() {
    const now = document.getElementById("theme").textContent;
    theme(THEMES[(THEMES.indexOf(now) + 1) % THEMES.length]);
  }

  // The cursor of j and k: rows of the index, items of a run.

  let cursor = null;

  function items() {
    if (A.runs.state.view === "index") {
      return Array.from(document.querySelectorAll("table.runs tbody tr:not([hidden])"));
    }
    return Array.from(document.querySelectorAll("#main .nav-item"));
  }

  function moveTo(node) {
    if (cursor) {
      cursor.classList.remove("cursor");
    }
    cursor = node;
    if (node) {
      node.classList.add("cursor");
      node.scrollIntoView({ block: "nearest" });
    }
  }

  function move(by) {
    const list = items();
    if (list.length === 0) {
      return;
    }
    const at = list.indexOf(cursor);
    const next = at < 0 ? (by > 0 ? 0 : list.length - 1) : Math.min(list.length - 1, Math.max(0, at + by));
    moveTo(list[next]);
  }

  function activate() {
    if (!cursor || !cursor.isConnected) {
      return;
    }
    if (A.runs.state.view === "index") {
      const r = A.index.runs[Number(cursor.dataset.run)];
      location.hash = A.hashFor(r.id);
      return;
    }
    const more = cursor.querySelector(".show-all");
    const details = cursor.querySelector("details");
    if (details) {
      details.open = !details.open;
    } else if (more) {
      more.click();
    }
  }

  function toggleHelp(show) {
    const help = document.getElementById("help");
    help.hidden = show === undefined ? !help.hidden : !show;
  }

  function keys(e) {
    if (e.ctrlKey || e.metaKey || e.altKey) {
      return;
    }
    const typing = e.target.closest && e.target.closest("input, select, textarea");
    if (typing) {
      return;
    }
    const actions = {
      "/": () => document.getElementById("search").focus(),
      n: () => A.search.go(A.search.state.current + 1),
      N: () => A.search.go(A.search.state.current - 1),
      j: () => move(1),
      k: () => move(-1),
      g: () => move(-Infinity),
      G: () => move(Infinity),
      o: activate,
      Enter: activate,
      t: cycleTheme,
      "?": () => toggleHelp(),
      u: back,
      Escape: back,
    };
    const action = actions[e.key];
    if (action) {
      e.preventDefault();
      action();
    }
  }

  function back() {
    const help = document.getElementById("help");
    if (!help.hidden) {
      toggleHelp(false);
    } else if (A.runs.state.view === "run" && A.index.roots.length > 1) {
      location.hash = "#";
    }
  }

  function route() {
    const before = A.runs.state.view + ":" + A.runs.state.root;
    A.runs.route();
    cursor = null;
    if (A.runs.state.view + ":" + A.runs.state.root !== before) {
      A.search.reset();
    }
  }

  function start() {
    theme(savedTheme());
    systemDark.addEventListener("change", () => theme(document.getElementById("theme").textContent));
    document.getElementById("theme").addEventListener("click", cycleTheme);
    document.getElementById("help-button").addEventListener("click", () => toggleHelp());
    document.addEventListener("keydown", keys);
    window.addEventListener("hashchange", route);
    A.search.init();
    const loading = document.getElementById("loading");
    if (loading) {
      loading.remove();
    }
    if (A.index.format !== 1) {
      document.getElementById("main").append(A.el("p", { class: "problem", text: "This page's data is of format " + A.index.format + "; this viewer reads format 1." }));
    }
    route();
    document.body.dataset.ready = "1";
    performance.mark("axt-ready");
  }

  start();
})(AxtView);
