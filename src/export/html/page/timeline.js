/* axt view, timeline: where a run's time went, from the events' own timestamps. One row per
   run and per step (sub-runs and nested steps indented under theirs), the step's span from its
   start to its completion; inside a row, its model calls and tool calls. A model call runs
   from the event before it in its step (the prompt, the last tool result) to the assistant
   message (the events of one provider message together); a tool call from its `tool.call` to
   its `tool.result` (or its measured `duration_ms`). Nothing is drawn that the times do not
   say: a run whose events share one time gets a note instead of bars. */
"use strict";

(function (A) {
  const { el, svg, duration, millis } = A;

  const MAX_ROWS = 400;
  const MAX_MARKS = 5000;

  /** Rows and marks of run `n` and the runs under it: {rows, marks, first, last}. */
  function collect(n) {
    const out = { rows: [], marks: 0, dropped: 0, first: Infinity, last: -Infinity };
    addRun(n, 0, out);
    return out;
  }

  function at(data, line) {
    const event = data.byLine.get(line);
    return event ? millis(event.t) : NaN;
  }

  function widen(out, ...times) {
    for (const t of times) {
      if (Number.isFinite(t)) {
        out.first = Math.min(out.first, t);
        out.last = Math.max(out.last, t);
      }
    }
  }

  function addRun(n, depth, out) {
    const data = A.run(n);
    const summary = data.summary;
    const start = data.events.length ? millis(data.events[0].t) : NaN;
    const end = data.events.length ? millis(data.events[data.events.length - 1].t) : NaN;
    widen(out, start, end);
    const row = { label: "run " + (summary.name || summary.id), depth, start, end, cls: "t-run", marks: [], run: n, line: 1 };
    pushRow(out, row);
    addNodes(data, data.tree, depth + 1, row, start, out);
  }

  function pushRow(out, row) {
    if (out.rows.length < MAX_ROWS) {
      out.rows.push(row);
    } else {
      out.dropped += 1;
    }
  }

  function mark(out, row, start, end, cls, title) {
    widen(out, start, end);
    if (!Number.isFinite(start) || !Number.isFinite(end)) {
      return;
    }
    if (out.marks >= MAX_MARKS) {
      return;
    }
    out.marks += 1;
    row.marks.push({ start, end, cls, title });
  }

  /** The kids of a run or step: steps become rows; model and tool calls become marks of `row`. */
  function addNodes(data, kids, depth, row, since, out) {
    let previous = since;
    let open = null;
    for (const kid of kids) {
      if (kid.k === "step") {
        const start = at(data, kid.line);
        const end = kid.end === undefined ? NaN : at(data, kid.end);
        widen(out, start, end);
        const failed = kid.status === "failed";
        const label = kid.path + (kid.it ? " #" + kid.it : "") + " [" + kid.kind + "]";
        const child = { label, depth, start, end, cls: failed ? "t-step-failed" : "t-step", marks: [], run: data.n, line: kid.line };
        pushRow(out, child);
        addNodes(data, kid.kids, depth + 1, child, start, out);
        open = null;
        previous = Number.isFinite(end) ? end : previous;
      } else if (kid.m !== undefined) {
        const event = data.byLine.get(kid.m);
        if (!event) {
          continue;
        }
        const t = millis(event.t);
        const id = event.d && event.d.message_id;
        if (event.y === "message.assistant") {
          if (open && id && open.id === id) {
            open.mark.end = t;
          } else {
            mark(out, row, previous, t, "t-model", "model call");
            open = { id, mark: row.marks[row.marks.length - 1] };
          }
          if (open && open.mark) {
            open.mark.title = "model call " + duration(open.mark.end - open.mark.start);
          }
        } else {
          open = null;
        }
        previous = Number.isFinite(t) ? t : previous;
      } else if (kid.t !== undefined) {
        const events = kid.t.map((line) => data.byLine.get(line)).filter(Boolean);
        const call = events.find((e) => e.y === "tool.call");
        const result = events.filter((e) => e.y === "tool.result").pop();
        const start = call ? millis(call.t) : result ? millis(result.t) : NaN;
        let end = result ? millis(result.t) : start;
        if (result && result.d && Number.isFinite(result.d.duration_ms) && !(end > start)) {
          end = start + result.d.duration_ms;
        }
        const failed = kid.outcome === "error" || kid.outcome === "no-call";
        mark(out, row, start, end, failed ? "t-tool-failed" : "t-tool", kid.name + " " + duration(end - start) + (failed ? " (failed)" : ""));
        open = null;
        previous = Number.isFinite(end) ? Math.max(previous, end) : previous;
      } else if (kid.run !== undefined && kid.run !== null) {
        addRun(kid.run, depth, out);
      }
    }
  }

  /** The timeline of run `n` (and its sub-runs), or a note when its times say nothing. */
  function render(n, width) {
    const out = collect(n);
    const box = el("div", { class: "chart timeline" }, [el("h3", { text: "Timeline" })]);
    const span = out.last - out.first;
    if (!(span > 0)) {
      box.append(el("p", { class: "muted", text: "The events carry one time (the provider does not date its records, or the run was instant): no durations to draw." }));
      return box;
    }
    const labelWidth = 220;
    const rowHeight = 16;
    const plot = Math.max(200, width - labelWidth - 24);
    const top = 18;
    const chart = svg("svg", { width: labelWidth + plot + 8, height: top + out.rows.length * rowHeight + 4, role: "img", "aria-label": "Timeline" });
    const x = (t) => labelWidth + ((t - out.first) / span) * plot;
    for (let i = 0; i <= 4; i += 1) {
      const tx = labelWidth + (i / 4) * plot;
      chart.append(svg("line", { x1: tx, y1: top - 4, x2: tx, y2: top + out.rows.length * rowHeight, class: "axis" }));
      chart.append(svg("text", { x: tx, y: 11, "text-anchor": i === 0 ? "start" : i === 4 ? "end" : "middle", text: duration((i / 4) * span) }));
    }
    out.rows.forEach((row, r) => {
      const y = top + r * rowHeight;
      const label = svg("text", { x: 2 + row.depth * 10, y: y + 12, class: "row-label", dataset: { run: row.run, line: row.line } }, []);
      label.textContent = row.label.length > 30 - row.depth ? row.label.slice(0, 29 - row.depth) + "…" : row.label;
      label.append(svg("title", { text: row.label }));
      chart.append(label);
      if (Number.isFinite(row.start)) {
        const end = Number.isFinite(row.end) ? row.end : out.last;
        chart.append(svg("rect", { x: x(row.start), y: y + 2, width: Math.max(1, x(end) - x(row.start)), height: rowHeight - 4, class: row.cls },
          [svg("title", { text: row.label + ": " + duration(end - row.start) + (Number.isFinite(row.end) ? "" : " (no end)") })]));
      }
      for (const m of row.marks) {
        // Two lanes in a row, so a tool call never hides the model call around it.
        const lane = m.cls === "t-model" ? 3 : 8;
        chart.append(svg("rect", { x: x(m.start), y: y + lane, width: Math.max(1.5, x(m.end) - x(m.start)), height: 5, class: m.cls },
          [svg("title", { text: m.title })]));
      }
    });
    chart.addEventListener("click", (e) => {
      const target = e.target.closest("[data-line]");
      if (target) {
        A.runs.reveal(Number(target.dataset.run), Number(target.dataset.line));
      }
    });
    box.append(chart);
    const notes = [];
    if (out.dropped) {
      notes.push(out.dropped + " more rows not drawn");
    }
    if (out.marks >= MAX_MARKS) {
      notes.push("only the first " + MAX_MARKS + " calls are drawn");
    }
    box.append(el("div", { class: "legend" }, [
      el("span", {}, [el("span", { class: "swatch t-step" }), "step"]),
      el("span", {}, [el("span", { class: "swatch t-model" }), "model call"]),
      el("span", {}, [el("span", { class: "swatch t-tool" }), "tool call"]),
      el("span", {}, [el("span", { class: "swatch t-tool-failed" }), "failed call"]),
      notes.length ? el("span", { text: notes.join("; ") }) : null,
    ]));
    return box;
  }

  A.timeline = { render, collect };
})(AxtView);
