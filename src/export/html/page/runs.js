/* axt view, runs: the two views and the way between them. The index of a directory's runs
   (totals, charts, a sortable and filterable table), and a run's view (its numbers, usage
   chart, execution tree, timeline and stream); `#run=ID&seq=N` opens a run at an event, and
   `reveal` draws whatever pages lie between the run and the event first. */
"use strict";

(function (A) {
  const { el, index, duration, count, cost, time, hashFor, totals, tokenTotal, millis } = A;

  const main = () => document.getElementById("main");
  const state = { view: null, root: null, target: null, sort: { key: "start", dir: -1 }, filter: "", status: "", problemsOnly: false };

  function card(label, value, cls) {
    return el("div", { class: "card" }, [el("div", { class: "label", text: label }), el("div", { class: "value" + (cls ? " " + cls : ""), text: value })]);
  }

  function crumbs(parts) {
    const nav = document.getElementById("crumbs");
    nav.replaceChildren();
    parts.forEach((part, n) => {
      if (n) {
        nav.append(el("span", { class: "sep", text: "›" }));
      }
      nav.append(part.href ? el("a", { href: part.href, text: part.text }) : el("span", { text: part.text }));
    });
  }

  function runLabel(r) {
    return r.name || r.title || r.id;
  }

  // The index.

  const COLUMNS = [
    { key: "start", label: "Start", value: (r) => r.start || "" },
    { key: "provider", label: "Provider", value: (r) => r.provider || "" },
    { key: "model", label: "Model", value: (r) => r.model || "" },
    { key: "run", label: "Run", value: (r) => runLabel(r).toLowerCase() },
    { key: "duration", label: "Duration", num: true, value: (r) => r.duration_ms ?? -1 },
    { key: "status", label: "Status", value: (r) => r.status },
    { key: "tokens", label: "Tokens", num: true, value: (r, t) => tokenTotal(t.tokens) },
    { key: "cost", label: "Cost", num: true, value: (r, t) => t.cost ?? -1 },
    { key: "tools", label: "Tool calls", num: true, value: (r, t) => t.calls },
    { key: "problems", label: "Problems", num: true, value: (r, t) => t.problems },
  ];

  function showIndex() {
    state.view = "index";
    state.root = null;
    document.title = "axt view: " + index.roots.length + " runs";
    crumbs([{ text: index.roots.length + (index.roots.length === 1 ? " run" : " runs") }]);
    const rows = index.roots.map((n) => ({ n, r: index.runs[n], t: totals(n) }));
    const all = { tokens: 0, cost: 0, unknown: 0, calls: 0, failures: 0, problems: 0, tools: {} };
    for (const { t } of rows) {
      all.tokens += tokenTotal(t.tokens);
      if (t.cost === null) {
        all.unknown += 1;
      } else {
        all.cost += t.cost;
      }
      all.calls += t.calls;
      all.failures += t.failures;
      all.problems += t.problems;
      for (const [name, [c, f]] of Object.entries(t.tools)) {
        const x = all.tools[name] || (all.tools[name] = [0, 0]);
        x[0] += c;
        x[1] += f;
      }
    }
    const view = el("div", { class: "index-view" });
    view.append(el("h1", { text: index.roots.length + (index.roots.length === 1 ? " run" : " runs") + (index.runs.length > index.roots.length ? " (" + index.runs.length + " with their sub-runs)" : "") }));
    view.append(el("div", { class: "cards" }, [
      card("Tokens", count(all.tokens)),
      card("Cost", all.unknown === rows.length ? "unknown" : cost(all.cost) + (all.unknown ? " + " + all.unknown + " unknown" : "")),
      card("Tool calls", count(all.calls) + (all.failures ? " (" + all.failures + " failed)" : "")),
      card("Problems", String(all.problems + index.problems.length), all.problems + index.problems.length ? "status-failed" : ""),
    ]));
    view.append(el("div", { class: "charts" }, [
      A.charts.overTime("Tokens and cost over time", rows.map(({ r, t }) => ({ t: millis(r.start), tokens: tokenTotal(t.tokens), cost: t.cost }))),
      A.charts.failures("Tools by failure rate", all.tools, 15),
    ]));
    for (const p of index.problems) {
      view.append(el("div", { class: "problem" }, [el("span", { class: "kind", text: p.kind }), " " + p.file + ":" + p.line + ", byte " + p.offset + ": " + p.message]));
    }
    const filter = el("input", { type: "search", id: "filter", placeholder: "Filter runs", "aria-label": "Filter runs", value: state.filter });
    const status = el("select", { id: "status-filter", "aria-label": "Status" }, ["", "completed", "failed", "incomplete"].map((s) =>
      el("option", { value: s, text: s || "any status", selected: s === state.status })));
    const problemsOnly = el("input", { type: "checkbox", id: "problems-only", checked: state.problemsOnly });
    const shown = el("span", { class: "muted", id: "shown" });
    view.append(el("div", { class: "index-tools" }, [filter, status, el("label", {}, [problemsOnly, " with problems"]), shown]));
    const table = el("table", { class: "runs" });
    const headRow = el("tr");
    for (const col of COLUMNS) {
      const th = el("th", { class: col.num ? "num" : "", "aria-sort": state.sort.key === col.key ? (state.sort.dir > 0 ? "ascending" : "descending") : "none" });
      th.append(el("button", { type: "button", text: col.label, dataset: { key: col.key }, on: { click: () => {
        state.sort = { key: col.key, dir: state.sort.key === col.key ? -state.sort.dir : (col.num ? -1 : 1) };
        showIndex();
      } } }));
      headRow.append(th);
    }
    table.append(el("thead", {}, [headRow]));
    const body = el("tbody");
    const col = COLUMNS.find((c) => c.key === state.sort.key) || COLUMNS[0];
    rows.sort((a, b) => {
      const x = col.value(a.r, a.t);
      const y = col.value(b.r, b.t);
      // Ties keep the page's order whichever way the column is sorted.
      return (x < y ? -1 : x > y ? 1 : 0) * state.sort.dir || a.n - b.n;
    });
    for (const { n, r, t } of rows) {
      const tr = el("tr", { dataset: { run: n, status: r.status, problems: t.problems }, tabindex: "-1" });
      tr.append(
        el("td", { class: "mono", text: time(r.start) }),
        el("td", { text: r.provider || "" }),
        el("td", { text: r.model || "" }),
        el("td", { class: "title" }, [
          el("a", { href: hashFor(r.id), text: runLabel(r) }),
          el("div", { class: "sub mono", text: r.id + (t.runs > 1 ? " · " + (t.runs - 1) + " sub-runs" : "") }),
          r.title && r.name ? el("div", { class: "sub", text: r.title }) : null,
        ]),
        el("td", { class: "num", text: duration(r.duration_ms) }),
        el("td", {}, [el("span", { class: "badge status-" + r.status, text: r.status })]),
        el("td", { class: "num", text: count(tokenTotal(t.tokens)) }),
        el("td", { class: "num", text: cost(t.cost) }),
        el("td", { class: "num", text: t.calls + (t.failures ? " (" + t.failures + " failed)" : "") }),
        el("td", { class: "num" + (t.problems ? " status-failed" : ""), text: String(t.problems) }),
      );
      tr.addEventListener("click", (e) => {
        if (!e.target.closest("a")) {
          location.hash = hashFor(r.id);
        }
      });
      tr.searchText = [r.id, r.name, r.title, r.provider, r.model, r.file, r.status].filter(Boolean).join("\n").toLowerCase();
      body.append(tr);
    }
    table.append(body);
    view.append(table);
    const apply = () => {
      state.filter = filter.value;
      state.status = status.value;
      state.problemsOnly = problemsOnly.checked;
      const words = state.filter.toLowerCase().split(/\s+/).filter(Boolean);
      let visible = 0;
      for (const tr of body.rows) {
        const show = words.every((w) => tr.searchText.includes(w)) &&
          (!state.status || tr.dataset.status === state.status) &&
          (!state.problemsOnly || Number(tr.dataset.problems) > 0);
        tr.hidden = !show;
        visible += show ? 1 : 0;
      }
      shown.textContent = visible + " of " + rows.length + " shown";
    };
    filter.addEventListener("input", apply);
    status.addEventListener("change", apply);
    problemsOnly.addEventListener("change", apply);
    main().replaceChildren(view);
    apply();
  }

  // A run.

  function navTree(n) {
    const left = { budget: 600 };
    const list = el("ul");
    list.append(navRun(n, left));
    return el("nav", { class: "nav", "aria-label": "Execution tree" }, [el("h2", { text: "Execution tree" }), list]);
  }

  function navRun(n, left) {
    const r = index.runs[n];
    const data = A.run(n);
    A.stream.place(data);
    const li = el("li", {}, [el("a", { href: hashFor(r.id), title: r.id }, [el("span", { class: "dot status-" + r.status }), "run " + runLabel(r)])]);
    const ul = el("ul");
    navKids(data, data.tree, ul, left);
    if (ul.childNodes.length) {
      li.append(ul);
    }
    return li;
  }

  function navKids(data, kids, ul, left) {
    for (const kid of kids) {
      if (left.budget <= 0) {
        ul.append(el("li", { class: "more", text: "…" }));
        return;
      }
      if (kid.k === "step") {
        left.budget -= 1;
        const label = kid.path + (kid.it ? " #" + kid.it : "") + " [" + kid.kind + "]" + (kid.ms !== undefined ? " " + duration(kid.ms) : "");
        const a = el("a", { href: "#", title: label, dataset: { run: data.n, line: kid.line } }, [el("span", { class: "dot status-" + kid.status }), label]);
        const li = el("li", {}, [a]);
        const sub = el("ul");
        navKids(data, kid.kids, sub, left);
        if (sub.childNodes.length) {
          li.append(sub);
        }
        ul.append(li);
      } else if (kid.run !== undefined && kid.run !== null) {
        left.budget -= 1;
        ul.append(navRun(kid.run, left));
      }
    }
  }

  function usageRows(n) {
    const rows = [];
    const add = (m) => {
      const data = A.run(m);
      const r = index.runs[m];
      if (r.meta) {
        rows.push({ label: "run " + runLabel(r), tokens: r.meta.tokens, cost: r.meta.cost_usd });
      }
      const steps = (kids) => {
        for (const kid of kids) {
          if (kid.k === "step") {
            if (kid.meta) {
              rows.push({ label: kid.path + (kid.it ? " #" + kid.it : ""), tokens: kid.meta.tokens, cost: kid.meta.cost_usd });
            }
            steps(kid.kids);
          } else if (kid.run !== undefined && kid.run !== null) {
            add(kid.run);
          }
        }
      };
      steps(data.tree);
    };
    add(n);
    return rows.slice(0, 60);
  }

  function showRun(root) {
    state.view = "run";
    state.root = root;
    state.target = null;
    const r = index.runs[root];
    const t = totals(root);
    document.title = "axt view: " + runLabel(r);
    const parts = [];
    if (index.roots.length > 1) {
      parts.push({ text: index.roots.length + " runs", href: "#" });
    }
    parts.push({ text: runLabel(r) });
    crumbs(parts);
    const content = el("div", { class: "content" });
    content.append(el("h1", { text: runLabel(r) }));
    if (r.title && r.title !== runLabel(r)) {
      content.append(el("div", { class: "muted", text: r.title }));
    }
    content.append(el("div", { class: "cards" }, [
      card("Status", r.status, "status-" + r.status),
      card("Provider", [r.provider, r.model].filter(Boolean).join(" · ") || "—"),
      card("Start", time(r.start) || "—"),
      card("Duration", duration(r.duration_ms) || "—"),
      card("Tokens", count(tokenTotal(t.tokens))),
      card("Cost", cost(t.cost)),
      card("Tool calls", t.calls + (t.failures ? " (" + t.failures + " failed)" : "")),
      card("Steps", String(t.steps)),
      card("Runs", String(t.runs)),
      card("Events", count(t.events)),
      card("Problems", String(t.problems), t.problems ? "status-failed" : ""),
    ]));
    if (r.error) {
      content.append(el("div", { class: "problem", text: "The run failed: " + r.error }));
    }
    const usage = usageRows(root);
    const charts = el("div", { class: "charts" });
    if (usage.length) {
      charts.append(A.charts.usage("Usage and cost per run and step", usage));
    }
    if (Object.keys(t.tools).length) {
      charts.append(A.charts.failures("Tools", t.tools, 12));
    }
    content.append(charts);
    const view = el("div", { class: "run-view" });
    view.append(navTree(root), content);
    main().replaceChildren(view);
    content.append(A.timeline.render(root, content.clientWidth || 900));
    content.append(el("h2", { text: "Events" }));
    content.append(A.stream.run(root));
    view.querySelector(".nav").addEventListener("click", (e) => {
      const a = e.target.closest("a[data-line]");
      if (a) {
        e.preventDefault();
        reveal(Number(a.dataset.run), Number(a.dataset.line));
      }
    });
  }

  // Finding an event: which kids lead to it, then drawing each on the way.

  function matches(kid, goal) {
    if (goal.run !== undefined) {
      return kid.run === goal.run;
    }
    const line = goal.line;
    return kid.m === line || (kid.t !== undefined && kid.t.includes(line)) ||
      (kid.k === "step" && (kid.line === line || kid.end === line)) ||
      ((kid.x || kid.problem) && kid.line === line);
  }

  function path(kids, goal) {
    for (const kid of kids) {
      if (matches(kid, goal)) {
        return [kid];
      }
      if (kid.k === "step") {
        const rest = path(kid.kids, goal);
        if (rest) {
          return [kid, ...rest];
        }
      }
    }
    return null;
  }

  /** Draws the way to `kid` inside the list `pager` shows; returns its element. */
  function drawKid(pager, kid) {
    if (kid.inside) {
      drawKid(pager, kid.inside);
      return kid.el;
    }
    const at = pager.items.indexOf(kid);
    if (at >= 0) {
      pager.ensure(at);
    }
    return kid.el;
  }

  /** Shows line `line` of run `n`: opens its root's view, draws the pages on the way, and
      scrolls to it. Returns the element, or null when the run has nothing at that line. */
  function reveal(n, line) {
    const root = index.runs[n].root;
    if (state.view !== "run" || state.root !== root) {
      showRun(root);
    }
    const chain = [];
    for (let m = n; m !== undefined && m !== null; m = index.runs[m].up) {
      chain.unshift(m);
      if (m === root) {
        break;
      }
    }
    let target = null;
    for (let i = 0; i < chain.length; i += 1) {
      const data = A.run(chain[i]);
      const last = i + 1 === chain.length;
      if (last && data.started && line === data.started.l) {
        target = data.el ? data.el.querySelector(".run-head") : null;
        break;
      }
      if (last && data.completed && line === data.completed.l) {
        target = data.el ? data.el.querySelector(".run-body > .step-foot") : null;
        break;
      }
      const way = path(data.tree, last ? { line } : { run: chain[i + 1] });
      if (!way) {
        return null;
      }
      let pager = data.pager;
      for (const kid of way) {
        target = drawKid(pager, kid);
        pager = kid.pager;
      }
    }
    if (target) {
      focus(target);
    }
    return target;
  }

  function focus(target) {
    if (state.target) {
      state.target.classList.remove("target");
    }
    for (let node = target.parentElement; node; node = node.parentElement) {
      if (node.tagName === "DETAILS") {
        node.open = true;
      }
    }
    target.classList.add("target");
    state.target = target;
    target.scrollIntoView({ block: "center" });
  }

  /** Follows the address's fragment: a run, a run at an event, or the index. */
  function route() {
    const link = A.parseHash(location.hash);
    if (!link) {
      if (index.roots.length === 1) {
        showRun(index.roots[0]);
      } else {
        showIndex();
      }
      return;
    }
    const n = A.runById(link.id);
    if (n < 0) {
      showIndex();
      main().prepend(el("div", { class: "problem", text: "No run " + link.id + " on this page." }));
      return;
    }
    if (link.seq === null || !Number.isFinite(link.seq)) {
      const root = index.runs[n].root;
      if (state.view !== "run" || state.root !== root) {
        showRun(root);
      }
      if (n !== root) {
        const data = A.run(n);
        reveal(n, data.started ? data.started.l : 1);
      } else {
        window.scrollTo(0, 0);
      }
      return;
    }
    const event = A.run(n).bySeq.get(link.seq);
    if (!event || !reveal(n, event.l)) {
      const root = index.runs[n].root;
      if (state.view !== "run" || state.root !== root) {
        showRun(root);
      }
      main().prepend(el("div", { class: "problem", text: "No event with seq " + link.seq + " in run " + link.id + "." }));
    }
  }

  A.runs = { route, reveal, focus, showIndex, showRun, state };
})(AxtView);
