/* axt view, markdown: assistant text rendered as Markdown, by building the DOM directly.

   The common subset agents write: ATX headings, paragraphs, fenced and indented code,
   block quotes, ordered and unordered lists (nested by indentation), pipe tables, rules;
   inline code, strong, emphasis, strike-through, links and bare URLs. Nothing is parsed as
   HTML: a tag in the text stays text. Links go to web and mail addresses only, and images are
   shown as their text and address, never loaded (the page fetches nothing). */
"use strict";

(function (A) {
  const { el } = A;

  const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([^`\s]*)/;
  const HEADING = /^ {0,3}(#{1,6})(?:\s+(.*?))?\s*#*\s*$/;
  const RULE = /^ {0,3}([-*_])(?:\s*\1){2,}\s*$/;
  const ITEM = /^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$/;
  const QUOTE = /^ {0,3}>\s?(.*)$/;
  const TABLE_RULE = /^\s*\|?\s*:?-{1,}:?\s*(\|\s*:?-{1,}:?\s*)*\|?\s*$/;

  /** The DOM of `text` as Markdown, in a `div.md`. */
  function render(text) {
    const root = el("div", { class: "md" });
    blocks(String(text).replace(/\r\n?/g, "\n").split("\n"), root);
    return root;
  }

  function blocks(lines, parent) {
    let i = 0;
    while (i < lines.length) {
      const line = lines[i];
      if (/^\s*$/.test(line)) {
        i += 1;
        continue;
      }
      const fence = FENCE.exec(line);
      if (fence) {
        const marker = fence[1];
        const body = [];
        i += 1;
        while (i < lines.length && !lines[i].trimStart().startsWith(marker)) {
          body.push(lines[i]);
          i += 1;
        }
        i += 1;
        const pre = el("pre", {}, [el("code", { text: body.join("\n") })]);
        if (fence[2]) {
          parent.append(el("div", { class: "lang", text: fence[2] }));
        }
        parent.append(pre);
        continue;
      }
      const heading = HEADING.exec(line);
      if (heading) {
        const h = el("h" + heading[1].length);
        inline(heading[2] || "", h);
        parent.append(h);
        i += 1;
        continue;
      }
      if (RULE.test(line)) {
        parent.append(el("hr"));
        i += 1;
        continue;
      }
      if (QUOTE.test(line)) {
        const body = [];
        while (i < lines.length && QUOTE.test(lines[i])) {
          body.push(QUOTE.exec(lines[i])[1]);
          i += 1;
        }
        const quote = el("blockquote");
        blocks(body, quote);
        parent.append(quote);
        continue;
      }
      if (ITEM.test(line)) {
        i = list(lines, i, parent);
        continue;
      }
      if (line.includes("|") && i + 1 < lines.length && TABLE_RULE.test(lines[i + 1]) && lines[i + 1].includes("-")) {
        i = table(lines, i, parent);
        continue;
      }
      if (/^( {4}|\t)/.test(line)) {
        const body = [];
        while (i < lines.length && (/^( {4}|\t)/.test(lines[i]) || /^\s*$/.test(lines[i]))) {
          body.push(lines[i].replace(/^( {4}|\t)/, ""));
          i += 1;
        }
        parent.append(el("pre", {}, [el("code", { text: body.join("\n").replace(/\n+$/, "") })]));
        continue;
      }
      const para = [];
      while (i < lines.length && !/^\s*$/.test(lines[i]) && !startsBlock(lines[i])) {
        para.push(lines[i].trim());
        i += 1;
      }
      if (para.length === 0) {
        // A line that looked like a block start but was not one (a lone `|`, say).
        para.push(lines[i].trim());
        i += 1;
      }
      const p = el("p");
      para.forEach((text, n) => {
        if (n > 0) {
          p.append(el("br"));
        }
        inline(text, p);
      });
      parent.append(p);
    }
  }

  function startsBlock(line) {
    return FENCE.test(line) || HEADING.test(line) || RULE.test(line) || QUOTE.test(line) || ITEM.test(line);
  }

  /** A list starting at line `i`; returns the line after it. Items indented more than the
      list's own start are nested inside the item above them. */
  function list(lines, i, parent) {
    const first = ITEM.exec(lines[i]);
    const indent = first[1].length;
    const ordered = /\d/.test(first[2]);
    const node = el(ordered ? "ol" : "ul");
    if (ordered) {
      const start = parseInt(first[2], 10);
      if (start !== 1) {
        node.setAttribute("start", String(start));
      }
    }
    let item = null;
    let body = [];
    const flush = () => {
      if (item) {
        blocks(body, item);
        node.append(item);
      }
    };
    while (i < lines.length) {
      const line = lines[i];
      const m = ITEM.exec(line);
      if (m && m[1].length <= indent + 1 && /\d/.test(m[2]) === ordered && m[1].length >= indent) {
        flush();
        item = el("li");
        body = [m[3]];
        i += 1;
        continue;
      }
      if (m && m[1].length < indent) {
        break;
      }
      if (/^\s*$/.test(line)) {
        const next = lines[i + 1];
        if (next === undefined || (!/^\s/.test(next) && !ITEM.test(next))) {
          break;
        }
        body.push("");
        i += 1;
        continue;
      }
      if (!m && !/^\s/.test(line) && startsBlock(line)) {
        break;
      }
      body.push(line.replace(new RegExp("^\\s{0," + (indent + 4) + "}"), ""));
      i += 1;
    }
    flush();
    parent.append(node);
    return i;
  }

  function cells(line) {
    let text = line.trim();
    if (text.startsWith("|")) {
      text = text.slice(1);
    }
    if (text.endsWith("|") && !text.endsWith("\\|")) {
      text = text.slice(0, -1);
    }
    return text.split(/(?<!\\)\|/).map((cell) => cell.trim().replace(/\\\|/g, "|"));
  }

  function table(lines, i, parent) {
    const head = cells(lines[i]);
    const node = el("table");
    const tr = el("tr");
    for (const cell of head) {
      const th = el("th");
      inline(cell, th);
      tr.append(th);
    }
    node.append(el("thead", {}, [tr]));
    const body = el("tbody");
    i += 2;
    while (i < lines.length && lines[i].includes("|") && !/^\s*$/.test(lines[i])) {
      const row = el("tr");
      for (const cell of cells(lines[i])) {
        const td = el("td");
        inline(cell, td);
        row.append(td);
      }
      body.append(row);
      i += 1;
    }
    node.append(body);
    parent.append(node);
    return i;
  }

  // Inline: the earliest of these wins at each point; text between matches stays text.
  const INLINE = [
    { re: /`+/y, code: true },
    { re: /!\[([^\]]*)\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/y, image: true },
    { re: /\[((?:[^\]\\]|\\.)*)\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/y, link: true },
    { re: /<((?:https?|mailto):[^\s>]+)>/y, auto: true },
    { re: /(\*\*|__)(?=\S)([\s\S]*?\S)\1/y, tag: "strong" },
    { re: /(\*|_)(?=\S)([\s\S]*?\S)\1(?![\w*])/y, tag: "em" },
    { re: /~~(?=\S)([\s\S]*?\S)~~/y, strike: true },
    { re: /https?:\/\/[^\s<>()]*[^\s<>().,;:!?'"\]]/y, bare: true },
  ];
  const STARTS = /[`![<*_~h\\]/g;

  /** Appends `text`'s inline Markdown to `parent`. */
  function inline(text, parent) {
    let plain = "";
    let i = 0;
    const flush = () => {
      if (plain) {
        parent.append(plain);
        plain = "";
      }
    };
    while (i < text.length) {
      STARTS.lastIndex = i;
      const found = STARTS.exec(text);
      if (!found) {
        plain += text.slice(i);
        break;
      }
      plain += text.slice(i, found.index);
      i = found.index;
      if (text[i] === "\\" && i + 1 < text.length && /[\\`*_{}[\]()#+\-.!|~<>]/.test(text[i + 1])) {
        plain += text[i + 1];
        i += 2;
        continue;
      }
      const step = token(text, i);
      if (!step) {
        plain += text[i];
        i += 1;
        continue;
      }
      flush();
      parent.append(step.node);
      i = step.end;
    }
    flush();
  }

  function token(text, i) {
    for (const rule of INLINE) {
      rule.re.lastIndex = i;
      const m = rule.re.exec(text);
      if (!m) {
        continue;
      }
      if (rule.tag && m[1][0] === "_" && i > 0 && /\w/.test(text[i - 1])) {
        // An underscore inside a word (snake_case) is not emphasis.
        continue;
      }
      if (rule.code) {
        const close = text.indexOf(m[0], i + m[0].length);
        if (close < 0) {
          return null;
        }
        const code = text.slice(i + m[0].length, close);
        return { node: el("code", { text: code.replace(/^ (.*) $/, "$1") }), end: close + m[0].length };
      }
      const end = rule.re.lastIndex;
      if (rule.image) {
        return { node: el("span", { class: "muted", text: "[image: " + m[1] + "] " + m[2] }), end };
      }
      if (rule.link) {
        const a = link(m[2]);
        inline(m[1], a);
        return { node: a, end };
      }
      if (rule.auto || rule.bare) {
        const url = rule.auto ? m[1] : m[0];
        const a = link(url);
        a.textContent = url;
        return { node: a, end };
      }
      if (rule.tag) {
        const node = el(rule.tag);
        inline(m[2], node);
        return { node, end };
      }
      if (rule.strike) {
        const node = el("s");
        inline(m[1], node);
        return { node, end };
      }
    }
    return null;
  }

  function link(url) {
    return el("a", { href: url, rel: "noopener noreferrer nofollow", target: "_blank", title: url });
  }

  A.markdown = { render };
})(AxtView);
