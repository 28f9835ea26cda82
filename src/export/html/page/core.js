/* axt view, core: the namespace the other scripts add to, the DOM helpers (they make text
   nodes and set properties; nothing here or anywhere on the page parses markup), the data
   blocks, and how numbers, times and JSON are shown.

   Everything in the data came from a transcript and is untrusted: it only ever becomes the
   text of a node or the value of an attribute of the page's own choosing. */
"use strict";

const AxtView = {};

(function (A) {
  /** An element: `options` sets text, class, dataset, listeners and attributes (names are
      always the page's own); `children` are nodes or strings (made text nodes). */
  function el(tag, options, children) {
    const node = document.createElement(tag);
    setup(node, options, children);
    return node;
  }

  /** An SVG element, set up as `el` does. */
  function svg(tag, options, children) {
    const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
    setup(node, options, children);
    return node;
  }

  function setup(node, options, children) {
    for (const [key, value] of Object.entries(options || {})) {
      if (value === undefined || value === null || value === false) {
        continue;
      }
      if (key === "text") {
        node.textContent = String(value);
      } else if (key === "class") {
        node.setAttribute("class", value);
      } else if (key === "dataset") {
        for (const [name, data] of Object.entries(value)) {
          node.dataset[name] = String(data);
        }
      } else if (key === "on") {
        for (const [type, handler] of Object.entries(value)) {
          node.addEventListener(type, handler);
        }
      } else if (key === "href") {
        node.setAttribute("href", safeHref(value));
      } else {
        node.setAttribute(key, value === true ? "" : String(value));
      }
    }
    for (const child of children || []) {
      if (child === null || child === undefined || child === false) {
        continue;
      }
      node.append(typeof child === "string" || typeof child === "number" ? String(child) : child);
    }
  }

  /** A link target from the input: web and mail addresses only; anything else (javascript:,
      data:, file:) becomes a harmless fragment. The page's own `#...` links pass. */
  function safeHref(url) {
    const text = String(url);
    if (text.startsWith("#")) {
      return text;
    }
    try {
      const parsed = new URL(text);
      if (parsed.protocol === "https:" || parsed.protocol === "http:" || parsed.protocol === "mailto:") {
        return parsed.href;
      }
    } catch {
      // Not an absolute URL: not followed.
    }
    return "#";
  }

  /** The parsed data block `id`, or null when the page has none. */
  function block(id) {
    const node = document.getElementById(id);
    return node ? JSON.parse(node.textContent) : null;
  }

  const index = block("axt-index") || { format: 0, runs: [], roots: [], problems: [] };
  const cache = new Map();

  /** Run `n`'s blocks, parsed on first use, with lookups: events by line and by seq, and the
      `tool_use` blocks by id (a `tool.call` with `same_input` takes its input from there). */
  function run(n) {
    let data = cache.get(n);
    if (data) {
      return data;
    }
    data = block("axt-run-" + n) || { chunks: 0, tree: [], problems: [] };
    // The events come in blocks of about a megabyte each (a browser parses many blocks of a
    // large run much faster than one).
    data.events = [];
    for (let k = 0; k < data.chunks; k += 1) {
      for (const event of block("axt-run-" + n + "-" + k) || []) {
        data.events.push(event);
      }
    }
    data.n = n;
    data.summary = index.runs[n];
    data.byLine = new Map();
    data.bySeq = new Map();
    data.toolUses = new Map();
    for (const event of data.events) {
      data.byLine.set(event.l, event);
      if (!data.bySeq.has(event.s)) {
        data.bySeq.set(event.s, event);
      }
      const blocks = event.d && Array.isArray(event.d.blocks) ? event.d.blocks : [];
      for (const b of blocks) {
        if (b.type === "tool_use") {
          data.toolUses.set(b.tool_id, b);
        }
      }
    }
    cache.set(n, data);
    return data;
  }

  /** The input of a tool payload, taken from its `tool_use` block when it repeats it. */
  function toolInput(data, payload) {
    if (payload.same_input) {
      const use = data.toolUses.get(payload.call_id);
      return use ? use.tool_input : null;
    }
    return payload.input === undefined ? null : payload.input;
  }

  /** The run of the page whose id is `id` (the first, when two files hold one id). */
  function runById(id) {
    return index.runs.findIndex((r) => r.id === id);
  }

  /** The runs of a tree: `n` and its descendants, depth first. */
  function subtree(n) {
    const out = [n];
    for (const kid of index.runs[n].kids) {
      out.push(...subtree(kid));
    }
    return out;
  }

  /** Totals over a run and its descendants: tokens, cost (null when none known), tools. */
  function totals(n) {
    const sum = { tokens: { input: 0, output: 0, cache_read: 0, cache_write: 0, reasoning: 0 },
      cost: null, calls: 0, failures: 0, problems: 0, events: 0, steps: 0, runs: 0, tools: {} };
    for (const m of subtree(n)) {
      const r = index.runs[m];
      for (const k of Object.keys(sum.tokens)) {
        sum.tokens[k] += r.tokens[k] || 0;
      }
      if (r.cost_usd !== null && r.cost_usd !== undefined) {
        sum.cost = (sum.cost || 0) + r.cost_usd;
      }
      sum.calls += r.tool_calls;
      sum.failures += r.tool_failures;
      sum.problems += r.problems;
      sum.events += r.events;
      sum.steps += r.steps;
      sum.runs += 1;
      for (const [name, [calls, failures]] of Object.entries(r.tools)) {
        const t = sum.tools[name] || (sum.tools[name] = [0, 0]);
        t[0] += calls;
        t[1] += failures;
      }
    }
    return sum;
  }

  function tokenTotal(tokens) {
    return tokens.input + tokens.output + tokens.cache_read + tokens.cache_write;
  }

  /** A duration for people: 850 ms, 4.2 s, 3 min 12 s, 2 h 05 min. */
  function duration(ms) {
    if (ms === null || ms === undefined || !Number.isFinite(ms)) {
      return "";
    }
    if (ms < 1000) {
      return Math.round(ms) + " ms";
    }
    const s = ms / 1000;
    if (s < 60) {
      return s.toFixed(s < 10 ? 2 : 1) + " s";
    }
    if (s < 3600) {
      return Math.floor(s / 60) + " min " + String(Math.round(s % 60)).padStart(2, "0") + " s";
    }
    return Math.floor(s / 3600) + " h " + String(Math.floor((s % 3600) / 60)).padStart(2, "0") + " min";
  }

  /** A count: 950, 12.3k, 4.1M. */
  function count(n) {
    if (n < 1000) {
      return String(n);
    }
    if (n < 1e6) {
      return (n / 1e3).toFixed(n < 1e4 ? 1 : 0) + "k";
    }
    return (n / 1e6).toFixed(n < 1e7 ? 1 : 0) + "M";
  }

  /** A cost: "$0.0421", or "unknown" when none was reported (never "$0"). */
  function cost(usd) {
    if (usd === null || usd === undefined) {
      return "unknown";
    }
    return "$" + (usd >= 1 ? usd.toFixed(2) : usd.toFixed(4));
  }

  /** A time as written, shortened for a table: date and seconds, its zone kept. */
  function time(text) {
    if (!text) {
      return "";
    }
    return String(text).replace("T", " ").replace(/(:\d\d)\.\d+/, "$1");
  }

  /** Milliseconds since the epoch of a time as written; NaN when it is not one. */
  function millis(text) {
    return Date.parse(text);
  }

  /** JSON for people: strings as they are, anything else indented. */
  function json(value) {
    if (typeof value === "string") {
      return value;
    }
    return JSON.stringify(value, null, 2);
  }

  /** A `#run=ID&seq=N` link's parts; null when the fragment names no run. */
  function parseHash(hash) {
    const params = new URLSearchParams(String(hash).replace(/^#/, ""));
    const id = params.get("run");
    if (id === null) {
      return null;
    }
    const seq = params.get("seq");
    return { id, seq: seq === null ? null : Number(seq) };
  }

  function hashFor(id, seq) {
    const params = new URLSearchParams();
    params.set("run", id);
    if (seq !== null && seq !== undefined) {
      params.set("seq", String(seq));
    }
    return "#" + params.toString();
  }

  Object.assign(A, {
    el, svg, safeHref, index, run, runById, subtree, totals, tokenTotal, toolInput,
    duration, count, cost, time, millis, json, parseHash, hashFor,
  });
})(AxtView);
