/* axt view, search: finds text among what the page shows (messages, thinking, tool input
   and output, errors, steps, problems) in the open run and its sub-runs, or in every run from
   the index. It searches the data, not the DOM, so a match in a page not drawn yet, a folded
   block or a clipped output is found too; going to a match draws and unfolds it, and marks it.
   Case is ignored. Each run's text is gathered on its first search, a slice at a time. */
"use strict";

(function (A) {
  const { el, json } = A;

  const MAX_MATCHES = 20000;
  const LISTED = 200;
  const SLICE = 3000;

  const state = { query: "", matches: [], current: -1, token: 0, complete: true };

  function box() {
    return document.getElementById("search");
  }

  /** The text of an event as the page shows it, lowercased. */
  function eventText(data, event) {
    const parts = [event.y, event.p];
    const d = event.d;
    if (d && Array.isArray(d.blocks)) {
      for (const b of d.blocks) {
        parts.push(b.text, b.thinking, b.tool_name, b.tool_id, b.command, b.chunk);
        // A call's input is shown on its card, with the tool.call: found there, not here.
        if (b.tool_input !== undefined && (b.server || !data.toolIds.has(b.tool_id))) {
          parts.push(json(b.tool_input));
        }
        if (b.tool_content !== undefined) {
          parts.push(json(b.tool_content));
        }
        if (b.raw !== undefined) {
          parts.push(json(b.raw));
        }
      }
    } else if (d && d.call_id !== undefined) {
      parts.push(d.name, d.call_id, d.error, ...(d.commands || []));
      for (const op of d.files || []) {
        parts.push(op.op + " " + op.path, op.diff, ...(op.edits || []).flat());
      }
      const input = A.toolInput(data, d);
      if (input !== null) {
        parts.push(json(input));
      }
      if (d.output !== undefined) {
        parts.push(A.stream.outputText(d.output));
      }
    } else if (d && d.kind !== undefined) {
      parts.push(d.name, d.kind, d.error);
      if (d.result !== undefined) {
        parts.push(json(d.result));
      }
    } else if (d !== undefined) {
      parts.push(json(d.raw !== undefined ? d.raw : d));
    }
    return parts.filter((p) => typeof p === "string" && p !== "").join("\n").toLowerCase();
  }

  function scope() {
    const runs = A.runs.state;
    if (runs.view === "run") {
      return A.subtree(runs.root);
    }
    return A.index.runs.map((_, n) => n);
  }

  /** Starts a search for `query`; matches arrive a slice at a time. */
  function start(query) {
    state.query = query.trim().toLowerCase();
    state.matches = [];
    state.current = -1;
    state.token += 1;
    const token = state.token;
    hideResults();
    if (!state.query) {
      state.complete = true;
      show();
      return;
    }
    state.complete = false;
    const todo = scope();
    let r = 0;
    let e = 0;
    const step = () => {
      if (token !== state.token) {
        return;
      }
      let budget = SLICE;
      while (r < todo.length && budget > 0 && state.matches.length < MAX_MATCHES) {
        const data = A.run(todo[r]);
        A.stream.place(data);
        if (!data.searchText) {
          data.searchText = new Array(data.events.length);
        }
        while (e < data.events.length && budget > 0) {
          budget -= 1;
          let text = data.searchText[e];
          if (text === undefined) {
            text = eventText(data, data.events[e]);
            data.searchText[e] = text;
          }
          if (text.includes(state.query)) {
            state.matches.push({ n: todo[r], event: data.events[e] });
          }
          e += 1;
        }
        if (e >= data.events.length) {
          for (const p of data.problems) {
            if ((p.kind + " " + p.message).toLowerCase().includes(state.query)) {
              state.matches.push({ n: todo[r], problem: p });
            }
          }
          r += 1;
          e = 0;
        }
      }
      state.complete = r >= todo.length || state.matches.length >= MAX_MATCHES;
      show();
      if (!state.complete) {
        setTimeout(step, 0);
      }
    };
    step();
  }

  function show() {
    const counter = document.getElementById("search-count");
    const n = state.matches.length;
    if (!state.query) {
      counter.textContent = "";
    } else if (!state.complete) {
      counter.textContent = n + "…";
    } else if (n === 0) {
      counter.textContent = "no match";
    } else {
      counter.textContent = (state.current >= 0 ? state.current + 1 + " / " : "") + n + (n >= MAX_MATCHES ? "+" : "");
    }
    document.body.dataset.matches = state.complete ? String(n) : "";
  }

  function snippet(text) {
    const at = text.indexOf(state.query);
    const from = Math.max(0, at - 40);
    return (from > 0 ? "…" : "") + text.slice(from, at + state.query.length + 60).replace(/\s+/g, " ");
  }

  /** The list of matches under the box. */
  function listResults() {
    const list = document.getElementById("search-results");
    list.replaceChildren();
    state.matches.slice(0, LISTED).forEach((m, i) => {
      const r = A.index.runs[m.n];
      const data = A.run(m.n);
      const where = m.event ? m.event.y + " #" + m.event.s : "problem, line " + m.problem.line;
      const text = m.event ? data.searchText[data.events.indexOf(m.event)] || "" : m.problem.message.toLowerCase();
      list.append(el("button", { type: "button", class: "hit" + (i === state.current ? " current" : ""), dataset: { index: i } }, [
        el("div", { class: "where", text: (r.name || r.id) + " · " + where }),
        el("div", { text: snippet(text) }),
      ]));
    });
    if (state.matches.length > LISTED) {
      list.append(el("div", { class: "more", text: (state.matches.length - LISTED) + " more: n and N step through them all" }));
    }
    list.hidden = state.matches.length === 0;
  }

  function hideResults() {
    document.getElementById("search-results").hidden = true;
  }

  /** Goes to match `i`: draws it, unfolds it, marks the query in it. */
  function go(i) {
    if (state.matches.length === 0) {
      return;
    }
    state.current = ((i % state.matches.length) + state.matches.length) % state.matches.length;
    const m = state.matches[state.current];
    const line = m.event ? m.event.l : m.problem.line;
    const target = A.runs.reveal(m.n, line);
    show();
    if (!target) {
      return;
    }
    for (const button of target.querySelectorAll(".show-all")) {
      button.click();
    }
    for (const details of target.querySelectorAll("details")) {
      if (details.textContent.toLowerCase().includes(state.query)) {
        details.open = true;
      }
    }
    unmark();
    const first = mark(target, state.query);
    (first || target).scrollIntoView({ block: "center" });
  }

  function unmark() {
    for (const node of document.querySelectorAll("mark.found")) {
      node.replaceWith(document.createTextNode(node.textContent));
    }
  }

  /** Wraps the occurrences of `query` in `root`'s text in <mark>; returns the first. */
  function mark(root, query) {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    const nodes = [];
    while (walker.nextNode()) {
      if (walker.currentNode.nodeValue.toLowerCase().includes(query)) {
        nodes.push(walker.currentNode);
      }
    }
    let first = null;
    let budget = 200;
    for (const node of nodes) {
      const text = node.nodeValue;
      const lower = text.toLowerCase();
      const parts = [];
      let from = 0;
      let at = lower.indexOf(query);
      while (at >= 0 && budget > 0) {
        budget -= 1;
        parts.push(document.createTextNode(text.slice(from, at)));
        const m = el("mark", { class: "found", text: text.slice(at, at + query.length) });
        first = first || m;
        parts.push(m);
        from = at + query.length;
        at = lower.indexOf(query, from);
      }
      parts.push(document.createTextNode(text.slice(from)));
      node.replaceWith(...parts);
    }
    return first;
  }

  function init() {
    let timer = null;
    const input = box();
    input.addEventListener("input", () => {
      clearTimeout(timer);
      timer = setTimeout(() => start(input.value), 150);
    });
    input.addEventListener("keydown", (e) => {
      if (e.key === "Enter") {
        e.preventDefault();
        if (state.query !== input.value.trim().toLowerCase()) {
          clearTimeout(timer);
          start(input.value);
        }
        if (state.complete) {
          hideResults();
          go(e.shiftKey ? state.current - 1 : state.current + 1);
        }
      } else if (e.key === "ArrowDown") {
        e.preventDefault();
        listResults();
        const first = document.querySelector("#search-results .hit");
        if (first) {
          first.focus();
        }
      } else if (e.key === "Escape") {
        hideResults();
        input.blur();
      }
    });
    input.addEventListener("focus", () => {
      if (state.matches.length) {
        listResults();
      }
    });
    document.getElementById("search-results").addEventListener("click", (e) => {
      const hit = e.target.closest(".hit");
      if (hit) {
        hideResults();
        go(Number(hit.dataset.index));
      }
    });
    document.getElementById("search-results").addEventListener("keydown", (e) => {
      const hit = e.target.closest(".hit");
      if (!hit) {
        return;
      }
      if (e.key === "ArrowDown" || e.key === "ArrowUp") {
        e.preventDefault();
        const next = e.key === "ArrowDown" ? hit.nextElementSibling : hit.previousElementSibling;
        (next && next.classList.contains("hit") ? next : input).focus();
      } else if (e.key === "Escape") {
        hideResults();
        input.focus();
      }
    });
    document.addEventListener("click", (e) => {
      if (!e.target.closest(".search")) {
        hideResults();
      }
    });
    document.getElementById("search-next").addEventListener("click", () => go(state.current + 1));
    document.getElementById("search-prev").addEventListener("click", () => go(state.current - 1));
  }

  /** The view changed: the matches were of the old scope. */
  function reset() {
    const query = box().value;
    if (query.trim()) {
      start(query);
    }
  }

  A.search = { init, start, go, reset, state, eventText };
})(AxtView);
