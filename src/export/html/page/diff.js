/* axt view, diff: edits shown as diffs. An edit call's `old -> new` replacement as a line
   diff (the longest common subsequence of lines, so unchanged lines read as context), and a
   patch's unified diff coloured by line. Built as text nodes, like everything else. */
"use strict";

(function (A) {
  const { el } = A;

  /** The most cells the exact diff fills in (old lines x new lines); beyond it an edit is
      shown as all of the old removed and all of the new added, which is still the truth. */
  const MAX_CELLS = 4_000_000;

  /** Line operations turning `a` into `b`: [" ", line], ["-", line] or ["+", line]. */
  function lines(a, b) {
    const n = a.length;
    const m = b.length;
    let start = 0;
    while (start < n && start < m && a[start] === b[start]) {
      start += 1;
    }
    let end = 0;
    while (end < n - start && end < m - start && a[n - 1 - end] === b[m - 1 - end]) {
      end += 1;
    }
    const head = a.slice(0, start).map((line) => [" ", line]);
    const tail = a.slice(n - end).map((line) => [" ", line]);
    const x = a.slice(start, n - end);
    const y = b.slice(start, m - end);
    let middle;
    if (x.length * y.length > MAX_CELLS) {
      middle = x.map((line) => ["-", line]).concat(y.map((line) => ["+", line]));
    } else {
      middle = lcs(x, y);
    }
    return head.concat(middle, tail);
  }

  function lcs(x, y) {
    const n = x.length;
    const m = y.length;
    const width = m + 1;
    const table = new Uint32Array((n + 1) * width);
    for (let i = n - 1; i >= 0; i -= 1) {
      for (let j = m - 1; j >= 0; j -= 1) {
        table[i * width + j] = x[i] === y[j]
          ? table[(i + 1) * width + j + 1] + 1
          : Math.max(table[(i + 1) * width + j], table[i * width + j + 1]);
      }
    }
    const out = [];
    let i = 0;
    let j = 0;
    while (i < n && j < m) {
      if (x[i] === y[j]) {
        out.push([" ", x[i]]);
        i += 1;
        j += 1;
      } else if (table[(i + 1) * width + j] >= table[i * width + j + 1]) {
        out.push(["-", x[i]]);
        i += 1;
      } else {
        out.push(["+", y[j]]);
        j += 1;
      }
    }
    while (i < n) {
      out.push(["-", x[i]]);
      i += 1;
    }
    while (j < m) {
      out.push(["+", y[j]]);
      j += 1;
    }
    return out;
  }

  const CLASS = { " ": "ctx", "-": "del", "+": "add" };

  /** A file's diff: its edits (`[old, new]` pairs) or its unified diff text. */
  function file(op) {
    const box = el("div", { class: "diff" }, [el("div", { class: "file", text: op.op + " " + op.path })]);
    const pre = el("pre");
    let added = 0;
    let removed = 0;
    if (op.edits && op.edits.length > 0) {
      op.edits.forEach(([before, after], n) => {
        if (op.edits.length > 1) {
          pre.append(el("span", { class: "hunk", text: "@@ edit " + (n + 1) + " of " + op.edits.length + " @@" }));
        }
        for (const [sign, line] of lines(split(before), split(after))) {
          added += sign === "+" ? 1 : 0;
          removed += sign === "-" ? 1 : 0;
          pre.append(el("span", { class: CLASS[sign], text: sign + " " + line }));
        }
      });
    } else if (op.diff) {
      for (const line of split(op.diff)) {
        let kind = "ctx";
        if (line.startsWith("@@")) {
          kind = "hunk";
        } else if (line.startsWith("+") && !line.startsWith("+++")) {
          kind = "add";
          added += 1;
        } else if (line.startsWith("-") && !line.startsWith("---")) {
          kind = "del";
          removed += 1;
        }
        pre.append(el("span", { class: kind, text: line }));
      }
    }
    if (pre.childNodes.length) {
      box.firstChild.append(el("span", { class: "muted", text: "  +" + added + " -" + removed }));
      box.append(pre);
    }
    return box;
  }

  function split(text) {
    const parts = String(text).split("\n");
    if (parts.length > 1 && parts[parts.length - 1] === "") {
      parts.pop();
    }
    return parts;
  }

  A.diff = { lines, file };
})(AxtView);
