/* axt view, stream: a run's events as a person reads them, nested as its tree nests them
   (steps, sub-agents inside the call that spawned them, sub-runs inside the step that invoked
   them): prompts with the system prompt apart, assistant text as Markdown, thinking folded,
   tool calls with their input, edits as diffs, output (long output folded), failures marked,
   a call seen on both channels once with both fidelities; problems and events no node holds
   where their line falls. Long lists are drawn a page at a time. */
"use strict";

(function (A) {
  const { el, json, duration, count, cost, hashFor, millis } = A;

  const PAGE = 200;
  const LONG_LINES = 30;
  const LONG_CHARS = 4000;

  // Placing: every event and problem of a run gets a place in its tree.

  /** The run's tree with the events no node holds and the problems inserted where their line
      falls (in the deepest step whose lines span it). Done once per run. */
  function place(data) {
    if (data.placed) {
      return data.tree;
    }
    data.placed = true;
    const held = new Set();
    const toolIds = new Set();
    const steps = [];
    const walk = (list) => {
      for (const kid of list) {
        if (kid.k === "step") {
          held.add(kid.line);
          if (kid.end !== undefined) {
            held.add(kid.end);
          }
          steps.push(kid);
          walk(kid.kids);
        } else if (kid.m !== undefined) {
          held.add(kid.m);
        } else if (kid.t !== undefined) {
          kid.t.forEach((line) => held.add(line));
          toolIds.add(kid.id);
          if (kid.agent_id) {
            toolIds.add(kid.agent_id);
          }
        }
      }
    };
    walk(data.tree);
    data.toolIds = toolIds;
    const starts = data.events.filter((e) => e.y === "run.started");
    const ends = data.events.filter((e) => e.y === "run.completed");
    data.started = starts[0] || null;
    data.completed = ends.length ? ends[ends.length - 1] : null;
    const extras = [];
    for (const event of data.events) {
      if (held.has(event.l) || event === data.started || event === data.completed) {
        continue;
      }
      const invoking = event.y.startsWith("step.call_workflow.") && steps.some((s) => s.child === event.c);
      if (invoking) {
        continue;
      }
      extras.push({ x: event, line: event.l });
    }
    for (const found of data.problems) {
      extras.push({ problem: found, line: found.line });
    }
    for (const extra of extras) {
      let home = null;
      for (const candidate of steps) {
        const end = candidate.end === undefined ? Infinity : candidate.end;
        if (candidate.line <= extra.line && extra.line <= end && (!home || candidate.line >= home.line)) {
          home = candidate;
        }
      }
      insert(home ? home.kids : data.tree, extra);
    }
    return data.tree;
  }

  function key(kid) {
    if (kid.m !== undefined) {
      return kid.m;
    }
    if (kid.t !== undefined) {
      return kid.t[0];
    }
    if (kid.k === "step" || kid.line !== undefined) {
      return kid.line;
    }
    return -Infinity;
  }

  function insert(list, extra) {
    let at = list.length;
    while (at > 0 && key(list[at - 1]) > extra.line) {
      at -= 1;
    }
    list.splice(at, 0, extra);
  }

  // Drawing.

  /** The kids of a run or step, a page at a time; sub-agent steps go inside their call. */
  function kids(data, list, parent) {
    return pager(parent, arrange(list), (kid) => draw(data, kid));
  }

  /** The items of a list of kids as drawn: a sub-agent's step (path `<parent>.<call id>`)
      goes inside the tool call that spawned it instead. Worked out once per list. */
  function arrange(list) {
    if (list.items) {
      return list.items;
    }
    const byTool = new Map();
    for (const kid of list) {
      if (kid.t !== undefined) {
        byTool.set(kid.id, kid);
      }
    }
    const items = [];
    for (const kid of list) {
      const spawner = kid.k === "step" && kid.path.includes(".") ? byTool.get(kid.path.slice(kid.path.lastIndexOf(".") + 1)) : null;
      if (spawner) {
        (spawner.nested || (spawner.nested = [])).push(kid);
        kid.inside = spawner;
      } else {
        items.push(kid);
      }
    }
    list.items = items;
    return items;
  }

  /** Draws `items` into `parent` a window at a time, with buttons for the rest. */
  function pager(parent, items, drawItem) {
    const state = { start: 0, end: Math.min(items.length, PAGE) };
    const before = el("div", { class: "pager" });
    const list = el("div", { class: "items" });
    const after = el("div", { class: "pager" });
    parent.append(before, list, after);
    const redraw = () => {
      list.replaceChildren(...items.slice(state.start, state.end).map(drawItem));
      before.replaceChildren();
      after.replaceChildren();
      if (state.start > 0) {
        before.append(el("button", { type: "button", text: "Show " + Math.min(PAGE, state.start) + " earlier of " + state.start,
          on: { click: () => { state.start = Math.max(0, state.start - PAGE); redraw(); } } }));
      }
      if (state.end < items.length) {
        after.append(el("button", { type: "button", text: "Show " + Math.min(PAGE, items.length - state.end) + " more of " + (items.length - state.end),
          on: { click: () => { state.end = Math.min(items.length, state.end + PAGE); redraw(); } } }));
      }
    };
    redraw();
    return {
      items,
      /** Draws item `index` if it is not drawn. */
      ensure(index) {
        if (index < state.start || index >= state.end) {
          state.start = Math.max(0, index - 50);
          state.end = Math.min(items.length, state.start + PAGE);
          redraw();
        }
      },
    };
  }

  function draw(data, kid) {
    let node;
    if (kid.k === "step") {
      node = step(data, kid);
    } else if (kid.m !== undefined) {
      node = message(data, data.byLine.get(kid.m), kid.m);
    } else if (kid.t !== undefined) {
      node = tool(data, kid);
    } else if (kid.run !== undefined) {
      node = kid.run === null ? el("p", { class: "muted", text: "(a sub-run that was not read)" }) : run(kid.run);
    } else if (kid.problem) {
      node = problem(data, kid.problem);
    } else {
      node = other(data, kid.x);
    }
    kid.el = node;
    return node;
  }

  function seqLink(data, event) {
    if (!event) {
      return null;
    }
    return el("a", { class: "seq muted", href: hashFor(data.summary.id, event.s), title: "Link to this event (line " + event.l + ")", text: "#" + event.s });
  }

  function badge(text, cls) {
    return el("span", { class: "badge" + (cls ? " " + cls : ""), text });
  }

  /** Text shown whole when short, else its head with a button for the rest. */
  function longText(text, cls) {
    const value = String(text);
    const lines = value.split("\n");
    if (lines.length <= LONG_LINES && value.length <= LONG_CHARS) {
      return el("pre", { class: cls || "out", text: value });
    }
    const head = lines.slice(0, LONG_LINES).join("\n").slice(0, LONG_CHARS);
    const pre = el("pre", { class: (cls || "out") + " clipped", text: head });
    const more = el("button", { type: "button", class: "show-all",
      text: "Show all " + lines.length.toLocaleString("en") + " lines (" + count(value.length) + " characters)" });
    more.addEventListener("click", () => {
      pre.textContent = value;
      pre.classList.remove("clipped");
      more.remove();
    });
    return el("div", { class: "long" }, [pre, more]);
  }

  /** A tool's output as text: a list of text parts (the Messages API's content blocks) as
      their text, anything else as JSON. */
  function outputText(output) {
    const texts = Array.isArray(output) && output.length > 0 &&
      output.every((part) => part && part.type === "text" && typeof part.text === "string" && Object.keys(part).length === 2);
    return texts ? output.map((part) => part.text).join("\n\n") : json(output);
  }

  function folded(summary, body, cls, open) {
    const details = el("details", { class: cls || "raw", open: Boolean(open) }, [el("summary", { text: summary })]);
    details.append(body);
    return details;
  }

  function message(data, event, line) {
    if (!event) {
      return el("div", { class: "problem", text: "line " + line + ": the event of this message was not read again" });
    }
    const d = event.d || {};
    const role = typeof d.role === "string" ? d.role : event.y.replace("message.", "");
    const box = el("div", { class: "msg nav-item " + (role === "user" ? "user" : "assistant"), dataset: { line: event.l, seq: event.s } });
    box.append(el("div", { class: "who" }, [
      el("span", { text: role === "user" ? "User" : role === "assistant" ? "Assistant" : "Role " + role }),
      d.message_id ? el("span", { class: "muted", text: d.message_id }) : null,
      el("span", { class: "muted", text: A.time(event.t) }),
      seqLink(data, event),
    ]));
    const blocks = Array.isArray(d.blocks) ? d.blocks : [];
    for (const b of blocks.filter((x) => x.system_prompt)) {
      box.append(folded("System prompt (" + count(String(b.text).length) + " characters)", el("pre", { class: "text plain", text: b.text }), "system-prompt"));
    }
    for (const b of blocks.filter((x) => !x.system_prompt)) {
      box.append(blockView(data, b, role));
    }
    if (d.raw !== undefined) {
      box.append(el("div", { class: "problem", text: "payload of no known shape" + (d.malformed ? ": " + d.malformed : "") }));
      box.append(longText(json(d.raw)));
    }
    return box;
  }

  function blockView(data, b, role) {
    switch (b.type) {
      case "text": {
        const body = role === "assistant" ? A.markdown.render(b.text) : el("div", { class: "text plain", text: b.text });
        const node = el("div", { class: "text" }, [body]);
        if (Array.isArray(b.citations) && b.citations.length) {
          node.append(el("div", { class: "muted" }, ["Sources: ", ...b.citations.flatMap((c, n) => [
            n ? ", " : "",
            c.url ? el("a", { href: c.url, rel: "noopener noreferrer nofollow", target: "_blank", text: c.title || c.url }) : (c.title || c.filename || c.type),
          ])]));
        }
        return node;
      }
      case "thinking":
        return folded(b.redacted ? "Thinking (withheld by the provider)" : "Thinking (" + count(String(b.thinking).length) + " characters" + (b.signed ? ", signed" : "") + ")",
          el("pre", { class: "text plain", text: b.thinking }), "thinking");
      case "tool_use":
        if (data.toolIds.has(b.tool_id) && !b.server) {
          return el("div", { class: "muted", text: "→ calls " + b.tool_name + " (" + b.tool_id + ")" + (b.incomplete ? ", arguments cut off" : "") });
        }
        return el("div", { class: "tool" }, [
          el("div", { class: "tool-head" }, [
            el("span", { class: "name", text: b.tool_name }),
            b.server ? badge("run by the provider") : badge("no tool.call"),
            b.incomplete ? badge("arguments cut off", "outcome-error") : null,
            el("span", { class: "muted mono", text: b.tool_id }),
          ]),
          el("div", { class: "part" }, [longText(json(b.tool_input))]),
        ]);
      case "tool_result":
        return el("div", { class: "tool" + (b.is_error ? " failed" : "") }, [
          el("div", { class: "tool-head" }, [el("span", { class: "name", text: "result" }), el("span", { class: "muted mono", text: b.tool_id }),
            b.is_error ? badge("error", "outcome-error") : null, b.exit_code !== undefined ? badge("exit " + b.exit_code) : null]),
          el("div", { class: "part" }, [longText(json(b.tool_content))]),
        ]);
      case "command":
        return el("pre", { class: "command", text: "$ " + b.command });
      case "stream":
        return el("pre", { class: "text plain", text: b.chunk });
      default:
        return el("div", { class: "event-other" }, [
          el("div", { text: "A block axt does not know: " + (b.unrecognized || b.type) }),
          longText(json(b.raw === undefined ? b : b.raw)),
        ]);
    }
  }

  function tool(data, kid) {
    const events = kid.t.map((line) => data.byLine.get(line)).filter(Boolean);
    const calls = events.filter((e) => e.y === "tool.call");
    const results = events.filter((e) => e.y === "tool.result");
    const router = (list) => list.find((e) => e.d && e.d.fidelity === "router");
    const call = router(calls) || calls[0];
    const result = router(results) || results[results.length - 1];
    const payload = (call || result || { d: {} }).d || {};
    const failed = kid.outcome === "error" || kid.outcome === "no-call";
    const box = el("div", { class: "tool nav-item" + (failed ? " failed" : ""), dataset: { line: kid.t[0], seq: (call || result || {}).s } });
    const start = call ? millis(call.t) : NaN;
    let took = result && call ? millis(result.t) - start : NaN;
    if (result && result.d && Number.isFinite(result.d.duration_ms)) {
      took = result.d.duration_ms;
    }
    box.append(el("div", { class: "tool-head" }, [
      el("span", { class: "name", text: kid.name }),
      payload.class ? badge(payload.class.replace("_", " ")) : null,
      badge(kid.outcome, "outcome-" + kid.outcome),
      Number.isFinite(took) ? el("span", { class: "muted", text: duration(took) }) : null,
      el("span", { class: "muted", text: payload.fidelity || "" }),
      el("span", { class: "muted mono", text: kid.id }),
      seqLink(data, call || result),
    ]));
    if (kid.sighted) {
      const also = events.filter((e) => e.d && e.d.fidelity !== "router");
      box.append(el("div", { class: "sightings", text: "Seen on both channels, shown once: recorded by the executor's router (router); the agent reported it too (agent_emitted" +
        (kid.agent_id ? ", as " + kid.agent_id : "") + ": " + also.map((e) => e.y + " #" + e.s).join(", ") + ")." }));
    }
    const input = call ? A.toolInput(data, call.d) : null;
    if (call) {
      const part = el("div", { class: "part" }, [el("div", { class: "label", text: "Input" })]);
      const shown = [];
      for (const command of call.d.commands || []) {
        shown.push(el("pre", { class: "command", text: "$ " + command }));
      }
      for (const op of call.d.files || []) {
        shown.push(A.diff.file(op));
      }
      part.append(...shown);
      if (input !== null) {
        const text = json(input);
        part.append(shown.length ? folded("Input as given (" + count(text.length) + " characters)", longText(text)) : longText(text));
      }
      box.append(part);
    }
    if (kid.nested) {
      const nested = el("div", { class: "nested" });
      kid.nested.forEach((sub) => nested.append(draw(data, sub)));
      box.append(nested);
    }
    if (result) {
      const part = el("div", { class: "part" }, [el("div", { class: "label", text: "Output" + (result.d.exit_code !== undefined ? " (exit " + result.d.exit_code + ")" : "") })]);
      if (result.d.error) {
        part.append(el("div", { class: "error", text: result.d.error }));
      }
      if (result.d.output !== undefined && result.d.output !== null) {
        part.append(longText(outputText(result.d.output)));
      }
      box.append(part);
    } else if (kid.outcome === "pending") {
      box.append(el("div", { class: "part muted", text: "No result was recorded." }));
    }
    return box;
  }

  function step(data, kid) {
    const box = el("div", { class: "step status-" + kid.status, dataset: { line: kid.line } });
    const meta = kid.meta;
    box.append(el("div", { class: "step-head nav-item", dataset: { line: kid.line, seq: (data.byLine.get(kid.line) || {}).s } }, [
      badge(kid.kind),
      el("span", { class: "name", text: kid.name || kid.path }),
      kid.name !== kid.path ? el("span", { class: "muted mono", text: kid.path }) : null,
      kid.it ? badge("iteration " + kid.it) : null,
      badge(kid.status, "status-" + kid.status),
      kid.ms !== undefined ? el("span", { class: "muted", text: duration(kid.ms) }) : null,
      meta ? el("span", { class: "muted", text: count(A.tokenTotal(meta.tokens)) + " tokens · " + cost(meta.cost_usd) }) : null,
      seqLink(data, data.byLine.get(kid.line)),
    ]));
    const body = el("div", { class: "step-body" });
    box.append(body);
    kid.pager = kids(data, kid.kids, body);
    if (kid.child && !kid.kids.some((k) => k.run !== undefined)) {
      body.append(el("p", { class: "problem", text: "invokes run " + kid.child + ", which was not read (see the problems)" }));
    }
    const end = kid.end === undefined ? null : data.byLine.get(kid.end);
    const foot = el("div", { class: "step-foot" });
    if (kid.error) {
      foot.append(el("div", { class: "error", text: "Failed: " + kid.error }));
    }
    if (meta) {
      foot.append(metaView(meta));
    }
    if (end && end.d && end.d.result !== undefined) {
      foot.append(folded(meta ? "Agent run metadata (JSON)" : "Result", longText(json(end.d.result))));
    }
    if (kid.status === "incomplete") {
      foot.append(el("div", { text: "No step.completed: the step was still running or the file was cut." }));
    }
    if (foot.childNodes.length) {
      box.append(foot);
    }
    return box;
  }

  /** Run metadata: model, tokens, cost, stop, errors, and what the adapter kept out. */
  function metaView(meta) {
    const t = meta.tokens;
    const parts = [
      [meta.provider, meta.version].filter(Boolean).join(" "),
      meta.model,
      count(t.input) + " in, " + count(t.output) + " out" + (t.reasoning ? " (" + count(t.reasoning) + " reasoning)" : "") +
        ", cache " + count(t.cache_read) + " read / " + count(t.cache_write) + " written",
      "cost " + cost(meta.cost_usd),
      meta.stop ? "stop: " + meta.stop : "",
    ].filter(Boolean);
    const box = el("div", { class: "kept" }, [el("div", { text: parts.join(" · ") })]);
    for (const [said, fatal] of meta.errors || []) {
      box.append(el("div", { class: "error", text: (fatal ? "Fatal error: " : "Error: ") + said }));
    }
    const k = meta.kept_out;
    if (k) {
      const kept = [["passthrough", k.passthrough], ["ignored", k.ignored], ["skipped", k.skipped], ["unreadable", k.unreadable]]
        .filter(([, n]) => n > 0).map(([what, n]) => n + " " + what);
      const unknown = (k.unknown_fields || []).map(([field, n]) => field + " (" + n + ")");
      if (kept.length || unknown.length) {
        box.append(el("div", {}, [
          el("b", { text: "Kept out of the blocks: " }),
          (kept.length ? kept.join(", ") + " records" : "no record") + (unknown.length ? "; fields the adapter does not know: " + unknown.join(", ") : ""),
        ]));
      }
    }
    return box;
  }

  function problem(data, p) {
    const where = (p.file !== data.summary.file ? p.file + ":" : "line ") + p.line + ", byte " + p.offset;
    return el("div", { class: "problem nav-item", dataset: { line: p.line } }, [
      el("span", { class: "kind", text: p.kind }), " ", where, ": ", p.message,
    ]);
  }

  function other(data, event) {
    const d = event.d;
    const why = d && d.raw !== undefined ? (d.malformed ? "its payload does not fit its shape: " + d.malformed : "its payload has no known shape") : "no node of the tree holds it";
    const box = el("div", { class: "event-other nav-item", dataset: { line: event.l, seq: event.s } }, [
      el("div", {}, [el("b", { text: event.y }), " " + (event.p ? "at " + event.p + " " : "") + "(" + why + ") ", seqLink(data, event)]),
    ]);
    if (d !== undefined) {
      box.append(longText(json(d.raw !== undefined ? d.raw : d)));
    }
    return box;
  }

  /** A run, drawn: head, its kids, its end. */
  function run(n) {
    const data = A.run(n);
    place(data);
    const s = data.summary;
    const section = el("section", { class: "run", dataset: { run: n } });
    const head = el("div", { class: "run-head nav-item", dataset: { line: data.started ? data.started.l : 1, seq: data.started ? data.started.s : "" } }, [
      el("b", { text: s.name || s.title || s.id }), " ",
      badge(s.status, "status-" + s.status), " ",
      el("span", { class: "muted", text: [duration(s.duration_ms), s.provider, s.model].filter(Boolean).join(" · ") }), " ",
      el("div", { class: "id mono", text: s.id + " · " + s.file + (s.parent ? " · invoked by " + s.parent : "") }),
    ]);
    section.append(head);
    const body = el("div", { class: "run-body" });
    section.append(body);
    data.pager = kids(data, data.tree, body);
    const done = data.completed;
    if (done) {
      const foot = el("div", { class: "step-foot nav-item", dataset: { line: done.l, seq: done.s } }, [
        el("div", {}, ["run.completed ", seqLink(data, done), " " + A.time(done.t)]),
      ]);
      if (done.d && done.d.error) {
        foot.append(el("div", { class: "error", text: "Failed: " + done.d.error }));
      }
      if (s.meta) {
        foot.append(metaView(s.meta));
      }
      if (done.d && done.d.result !== undefined) {
        foot.append(folded(s.meta ? "Run metadata (JSON)" : "Result", longText(json(done.d.result))));
      }
      body.append(foot);
    } else if (data.events.length) {
      body.append(el("div", { class: "problem", text: "No run.completed: the run was still going, or its file was cut." }));
    }
    data.el = section;
    return section;
  }

  A.stream = { run, place, arrange, longText, outputText };
})(AxtView);
