/* axt view, charts: small SVG charts, drawn from the data with DOM calls. Usage and cost per
   step or run (stacked bars), cost and tokens over time, tools by failure rate. Colours come
   from classes (view.css), so they follow the theme; every mark has a <title> for its
   numbers. */
"use strict";

(function (A) {
  const { el, svg, count, cost } = A;

  const KINDS = ["input", "cache_read", "cache_write", "output"];
  const KIND_NAMES = { input: "input", cache_read: "cache read", cache_write: "cache write", output: "output", reasoning: "reasoning" };

  function legend(items) {
    return el("div", { class: "legend" }, items.map(([cls, label]) =>
      el("span", {}, [el("span", { class: "swatch " + cls }), label])));
  }

  function titled(node, text) {
    node.append(svg("title", { text }));
    return node;
  }

  /** Tokens by kind and cost, one stacked bar per row ({label, tokens, cost}). */
  function usage(title, rows) {
    const width = 620;
    const labelWidth = 170;
    const costWidth = 120;
    const rowHeight = 20;
    const barWidth = width - labelWidth - costWidth;
    const max = rows.reduce((m, r) => Math.max(m, KINDS.reduce((s, k) => s + (r.tokens[k] || 0), 0)), 1);
    const chart = svg("svg", { width, height: rows.length * rowHeight + 4, role: "img", "aria-label": title });
    rows.forEach((row, n) => {
      const y = n * rowHeight + 2;
      const label = row.label.length > 26 ? row.label.slice(0, 25) + "…" : row.label;
      chart.append(titled(svg("text", { x: 0, y: y + 13, text: label }), row.label));
      let x = labelWidth;
      for (const kind of KINDS) {
        const value = row.tokens[kind] || 0;
        if (value === 0) {
          continue;
        }
        const w = Math.max(1, (value / max) * barWidth);
        chart.append(titled(svg("rect", { x, y: y + 3, width: w, height: rowHeight - 6, class: "k-" + kind }),
          row.label + ": " + value.toLocaleString("en") + " " + KIND_NAMES[kind] + " tokens"));
        x += w;
      }
      const total = KINDS.reduce((s, k) => s + (row.tokens[k] || 0), 0);
      chart.append(svg("text", { x: width - costWidth + 4, y: y + 13, text: count(total) + " · " + cost(row.cost) }));
    });
    return el("div", { class: "chart" }, [
      el("h3", { text: title }),
      chart,
      legend(KINDS.map((k) => ["k-" + k, KIND_NAMES[k]])),
    ]);
  }

  /** Tokens (bars) and cost (line) over time, bucketed: points are {t (ms), tokens, cost}. */
  function overTime(title, points) {
    const width = 640;
    const height = 190;
    const pad = { left: 46, right: 56, top: 8, bottom: 34 };
    const chart = svg("svg", { width, height, role: "img", "aria-label": title });
    const dated = points.filter((p) => Number.isFinite(p.t));
    if (dated.length === 0) {
      chart.append(svg("text", { x: pad.left, y: height / 2, text: "no dated runs" }));
      return el("div", { class: "chart" }, [el("h3", { text: title }), chart]);
    }
    const first = dated.reduce((m, p) => Math.min(m, p.t), Infinity);
    const last = dated.reduce((m, p) => Math.max(m, p.t), -Infinity);
    const buckets = Math.min(60, Math.max(1, dated.length));
    const span = Math.max(1, last - first);
    const sums = Array.from({ length: buckets }, () => ({ tokens: 0, cost: 0, known: false, runs: 0 }));
    for (const p of dated) {
      const b = Math.min(buckets - 1, Math.floor(((p.t - first) / span) * buckets));
      sums[b].tokens += p.tokens;
      sums[b].runs += 1;
      if (p.cost !== null && p.cost !== undefined) {
        sums[b].cost += p.cost;
        sums[b].known = true;
      }
    }
    const plotW = width - pad.left - pad.right;
    const plotH = height - pad.top - pad.bottom;
    const maxTokens = Math.max(1, ...sums.map((s) => s.tokens));
    const maxCost = Math.max(0, ...sums.map((s) => s.cost));
    const slot = plotW / buckets;
    chart.append(svg("line", { x1: pad.left, y1: pad.top + plotH, x2: pad.left + plotW, y2: pad.top + plotH, class: "axis" }));
    chart.append(svg("text", { x: 2, y: pad.top + 10, text: count(maxTokens) }));
    chart.append(svg("text", { x: 2, y: pad.top + plotH, text: "0" }));
    if (maxCost > 0) {
      chart.append(svg("text", { x: width - pad.right + 4, y: pad.top + 10, text: cost(maxCost) }));
    }
    const path = [];
    sums.forEach((s, b) => {
      const x = pad.left + b * slot;
      const from = new Date(first + (b / buckets) * span).toISOString().slice(0, 16).replace("T", " ");
      if (s.tokens > 0) {
        const h = (s.tokens / maxTokens) * plotH;
        chart.append(titled(svg("rect", { x: x + 1, y: pad.top + plotH - h, width: Math.max(1, slot - 2), height: h, class: "k-input" }),
          from + ": " + s.runs + " runs, " + s.tokens.toLocaleString("en") + " tokens, " + (s.known ? cost(s.cost) : "cost unknown")));
      }
      if (s.known && maxCost > 0) {
        const y = pad.top + plotH - (s.cost / maxCost) * plotH;
        path.push((path.length ? "L" : "M") + (x + slot / 2).toFixed(1) + " " + y.toFixed(1));
        chart.append(titled(svg("circle", { cx: x + slot / 2, cy: y, r: 2.5, class: "k-cost-dot" }), from + ": " + cost(s.cost)));
      }
    });
    if (path.length > 1) {
      chart.append(svg("path", { d: path.join(" "), class: "k-cost" }));
    }
    const day = (t) => new Date(t).toISOString().slice(0, 16).replace("T", " ");
    chart.append(svg("text", { x: pad.left, y: height - 14, text: day(first) }));
    chart.append(svg("text", { x: pad.left + plotW, y: height - 14, "text-anchor": "end", text: day(last) + " UTC" }));
    return el("div", { class: "chart" }, [
      el("h3", { text: title }),
      chart,
      legend([["k-input", "tokens (left)"], ["k-cost", "reported cost (right)"]]),
    ]);
  }

  /** Tools by failure rate ({name: [calls, failures]}), the most failing first. */
  function failures(title, tools, limit) {
    const rows = Object.entries(tools)
      .map(([name, [calls, failed]]) => ({ name, calls, failed, rate: calls ? failed / calls : 0 }))
      .sort((a, b) => b.rate - a.rate || b.calls - a.calls || (a.name < b.name ? -1 : 1))
      .slice(0, limit);
    const width = 460;
    const labelWidth = 150;
    const rowHeight = 18;
    const barWidth = width - labelWidth - 90;
    const chart = svg("svg", { width, height: Math.max(1, rows.length) * rowHeight + 4, role: "img", "aria-label": title });
    if (rows.length === 0) {
      chart.append(svg("text", { x: 0, y: 14, text: "no tool calls" }));
    }
    rows.forEach((row, n) => {
      const y = n * rowHeight + 2;
      const label = row.name.length > 22 ? row.name.slice(0, 21) + "…" : row.name;
      chart.append(titled(svg("text", { x: 0, y: y + 12, text: label }), row.name));
      chart.append(svg("rect", { x: labelWidth, y: y + 3, width: barWidth, height: rowHeight - 6, class: "k-calls" }));
      if (row.failed > 0) {
        chart.append(titled(svg("rect", { x: labelWidth, y: y + 3, width: Math.max(1, row.rate * barWidth), height: rowHeight - 6, class: "k-failures" }),
          row.name + ": " + row.failed + " of " + row.calls + " calls failed"));
      }
      chart.append(svg("text", { x: labelWidth + barWidth + 6, y: y + 12,
        text: Math.round(row.rate * 100) + "% of " + row.calls }));
    });
    return el("div", { class: "chart" }, [
      el("h3", { text: title }),
      chart,
      legend([["k-failures", "failed"], ["k-calls", "calls"]]),
    ]);
  }

  A.charts = { usage, overTime, failures };
})(AxtView);
