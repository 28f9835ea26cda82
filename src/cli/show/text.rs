//! Text for a terminal: Markdown made plain, lines wrapped to a width, styles painted.
//!
//! An agent writes Markdown; a person at a terminal reads it best without the markup: a
//! heading becomes a bold line, a bullet `•`, `**bold**` and `` `code` `` lose their markers
//! (and are styled when colour is on), a link shows its address after its text, a fenced
//! code block is indented and never wrapped. Everything else is kept as written. Every
//! piece of text from the input is escaped ([`escape`]) before it is laid out, so no
//! control character reaches the terminal, and wrapping measures what a terminal shows
//! (wide characters count two columns).
//!
//! This file owns layout and nothing about runs: it is handed strings and gives lines.

use unicode_width::UnicodeWidthStr;

use crate::cli::console::{escape, paint};

/// How a piece of text looks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Style {
    Plain,
    Bold,
    Dim,
    Code,
    Red,
    Yellow,
    /// A `--grep` match.
    Match,
}

impl Style {
    fn sgr(self) -> &'static str {
        match self {
            Style::Plain => "",
            Style::Bold => "1",
            Style::Dim => "2",
            Style::Code => "36",
            Style::Red => "31",
            Style::Yellow => "33",
            Style::Match => "1;7",
        }
    }
}

/// A run of text in one style.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Span {
    pub(crate) style: Style,
    pub(crate) text: String,
}

impl Span {
    pub(crate) fn new(style: Style, text: impl Into<String>) -> Span {
        Span {
            style,
            text: text.into(),
        }
    }
}

/// One logical line: its spans, how wrapped parts of it are indented, and whether it may
/// be wrapped at all (code is not).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Line {
    pub(crate) spans: Vec<Span>,
    /// Extra indent of the lines a wrap makes (a bullet's text hangs under its text).
    pub(crate) hang: usize,
    pub(crate) wrap: bool,
}

impl Line {
    pub(crate) fn of(spans: Vec<Span>) -> Line {
        Line {
            spans,
            hang: 0,
            wrap: true,
        }
    }

    pub(crate) fn plain(style: Style, text: impl Into<String>) -> Line {
        Line::of(vec![Span::new(style, text)])
    }

    /// A line never wrapped (code, tool output), cut instead when `cut` is set.
    pub(crate) fn verbatim(style: Style, text: impl Into<String>) -> Line {
        Line {
            spans: vec![Span::new(style, text)],
            hang: 0,
            wrap: false,
        }
    }

    /// The text without styles.
    pub(crate) fn text(&self) -> String {
        self.spans.iter().map(|s| s.text.as_str()).collect()
    }
}

/// `text` from the input, safe for a terminal and laid out flat: tabs to spaces (every
/// tab stop at 4), a CR before an LF dropped, every other control character escaped.
pub(crate) fn clean(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c == '\t' {
            let column = out.rsplit('\n').next().map_or(0, |l| l.chars().count());
            out.push_str(&" ".repeat(4 - column % 4));
        } else {
            out.push(c);
        }
    }
    out
}

/// The lines of `text` from the input, each escaped (`\r\n` and `\n` end lines).
pub(crate) fn input_lines(text: &str) -> Vec<String> {
    clean(text)
        .split('\n')
        .map(|line| escape(line.strip_suffix('\r').unwrap_or(line)).into_owned())
        .collect()
}

/// Markdown `text` made plain: see the [module documentation](self).
pub(crate) fn markdown(text: &str) -> Vec<Line> {
    let mut lines = Vec::new();
    let mut fence: Option<String> = None;
    // Blank lines around the text are the provider's framing, not the text.
    let all = input_lines(text);
    let first = all
        .iter()
        .position(|l| !l.trim().is_empty())
        .unwrap_or(all.len());
    let last = all
        .iter()
        .rposition(|l| !l.trim().is_empty())
        .map_or(first, |i| i + 1);
    for raw in &all[first..last] {
        let trimmed = raw.trim_start();
        if let Some(marker) = &fence {
            if trimmed.starts_with(marker.as_str()) {
                fence = None;
            } else {
                lines.push(Line::verbatim(Style::Code, format!("    {raw}")));
            }
            continue;
        }
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            fence = Some(trimmed[..3].to_owned());
            continue;
        }
        lines.push(markdown_line(raw));
    }
    lines
}

fn markdown_line(raw: &str) -> Line {
    let indent = raw.len() - raw.trim_start().len();
    let body = raw.trim_start();
    let lead = &raw[..indent];
    // Headings: `## Title` -> a bold line.
    let hashes = body.bytes().take_while(|b| *b == b'#').count();
    if (1..=6).contains(&hashes) && body[hashes..].starts_with(' ') {
        let mut spans = inline(body[hashes..].trim());
        for span in &mut spans {
            if span.style == Style::Plain {
                span.style = Style::Bold;
            }
        }
        return Line::of(spans);
    }
    // A rule: three or more of one of `-`, `*`, `_`, and nothing else but spaces.
    let marks: Vec<char> = body.chars().filter(|c| *c != ' ').collect();
    if marks.len() >= 3
        && matches!(marks[0], '-' | '*' | '_')
        && marks.iter().all(|c| *c == marks[0])
    {
        return Line::plain(Style::Dim, "────");
    }
    // Bullets: `- x`, `* x`, `+ x` -> `• x`, the rest of the item hanging under its text.
    for marker in ["- ", "* ", "+ "] {
        if let Some(item) = body.strip_prefix(marker) {
            let mut spans = vec![Span::new(Style::Plain, format!("{lead}• "))];
            spans.extend(inline(item));
            return Line {
                hang: indent + 2,
                ..Line::of(spans)
            };
        }
    }
    // Numbered items keep their numbers, and hang too.
    let digits = body.bytes().take_while(u8::is_ascii_digit).count();
    if digits > 0 && (body[digits..].starts_with(". ") || body[digits..].starts_with(") ")) {
        let number = &body[..digits + 2];
        let mut spans = vec![Span::new(Style::Plain, format!("{lead}{number}"))];
        spans.extend(inline(&body[digits + 2..]));
        return Line {
            hang: indent + digits + 2,
            ..Line::of(spans)
        };
    }
    // Quotes.
    if let Some(quote) = body.strip_prefix('>') {
        let mut spans = vec![Span::new(Style::Dim, format!("{lead}│ "))];
        spans.extend(inline(quote.trim_start()));
        return Line {
            hang: indent + 2,
            ..Line::of(spans)
        };
    }
    // A table row is laid out by its author: kept whole.
    if body.starts_with('|') {
        return Line::verbatim(Style::Plain, raw);
    }
    let mut spans = vec![Span::new(Style::Plain, lead)];
    spans.extend(inline(body));
    Line {
        hang: indent,
        ..Line::of(spans)
    }
}

/// Inline Markdown: `**bold**` / `__bold__`, `` `code` ``, `[text](url)`, `\*` escapes.
/// Single `*` and `_` are left alone: in agents' text they are more often file names and
/// globs than emphasis.
fn inline(text: &str) -> Vec<Span> {
    let mut spans: Vec<Span> = Vec::new();
    let mut plain = String::new();
    let flush = |plain: &mut String, spans: &mut Vec<Span>| {
        if !plain.is_empty() {
            spans.push(Span::new(Style::Plain, std::mem::take(plain)));
        }
    };
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if c == '\\'
            && let Some(next) = rest[1..].chars().next()
            && next.is_ascii_punctuation()
        {
            plain.push(next);
            rest = &rest[1 + next.len_utf8()..];
            continue;
        }
        if c == '`'
            && let Some(end) = rest[1..].find('`')
            && end > 0
        {
            flush(&mut plain, &mut spans);
            spans.push(Span::new(Style::Code, &rest[1..1 + end]));
            rest = &rest[2 + end..];
            continue;
        }
        if (rest.starts_with("**") || rest.starts_with("__"))
            && let Some(end) = rest[2..].find(&rest[..2])
            && end > 0
        {
            flush(&mut plain, &mut spans);
            spans.push(Span::new(Style::Bold, &rest[2..2 + end]));
            rest = &rest[4 + end..];
            continue;
        }
        if c == '['
            && let Some(close) = rest.find("](")
            && let Some(end) = rest[close..].find(')')
            && !rest[1..close].contains(['[', ']'])
        {
            let label = &rest[1..close];
            let url = &rest[close + 2..close + end];
            if !url.contains(char::is_whitespace) {
                plain.push_str(label);
                if url != label {
                    plain.push_str(" (");
                    plain.push_str(url);
                    plain.push(')');
                }
                rest = &rest[close + end + 1..];
                continue;
            }
        }
        plain.push(c);
        rest = &rest[c.len_utf8()..];
    }
    flush(&mut plain, &mut spans);
    spans
}

/// Lays `line` out at `indent` columns within `width` (0: no limit), wrapping at spaces
/// (a word longer than the room is broken), and paints it. A line that may not be wrapped
/// is cut with `…` when `cut`, else broken at the width.
pub(crate) fn layout(
    line: &Line,
    indent: usize,
    width: usize,
    colour: bool,
    cut: bool,
) -> Vec<String> {
    let lead = " ".repeat(indent);
    let room = if width == 0 {
        usize::MAX
    } else {
        width.saturating_sub(indent).max(20)
    };
    let rows = if !line.wrap {
        verbatim_rows(&line.spans, room, cut)
    } else {
        wrap(&line.spans, room, line.hang)
    };
    rows.into_iter()
        .enumerate()
        .map(|(index, spans)| {
            let hang = if index > 0 && line.wrap {
                " ".repeat(line.hang.min(room / 2))
            } else {
                String::new()
            };
            let body: String = merged(spans)
                .iter()
                .filter(|span| !span.text.is_empty())
                .map(|span| paint(colour, span.style.sgr(), &span.text).into_owned())
                .collect();
            format!("{lead}{hang}{body}").trim_end().to_owned()
        })
        .collect()
}

/// A row's spans with neighbours of one style joined, a space between two of one style
/// taking theirs: one SGR sequence per run of a style, not one per word.
fn merged(spans: Vec<Span>) -> Vec<Span> {
    let mut out: Vec<Span> = Vec::with_capacity(spans.len());
    let mut iter = spans.into_iter().peekable();
    while let Some(mut span) = iter.next() {
        let joins_neighbours = span.text == " "
            && span.style == Style::Plain
            && out
                .last()
                .zip(iter.peek())
                .is_some_and(|(a, b)| a.style == b.style);
        if joins_neighbours && let Some(last) = out.last() {
            span.style = last.style;
        }
        match out.last_mut() {
            Some(last) if last.style == span.style => last.text.push_str(&span.text),
            _ => out.push(span),
        }
    }
    out
}

/// Spans laid out as they are: one row when they fit, else cut at `room` columns with `…`
/// (`cut`), else broken every `room` columns.
fn verbatim_rows(spans: &[Span], room: usize, cut: bool) -> Vec<Vec<Span>> {
    let total: usize = spans.iter().map(|s| s.text.width()).sum();
    if total <= room {
        return vec![spans.to_vec()];
    }
    let limit = if cut { room - 1 } else { room };
    let mut rows: Vec<Vec<Span>> = vec![Vec::new()];
    let mut used = 0;
    'spans: for span in spans {
        for c in span.text.chars() {
            let w = UnicodeWidthStr::width(c.encode_utf8(&mut [0; 4]) as &str);
            if used + w > limit {
                if cut {
                    rows[0].push(Span::new(span.style, "…"));
                    break 'spans;
                }
                rows.push(Vec::new());
                used = 0;
            }
            let row = rows.last_mut().expect("a row");
            match row.last_mut() {
                Some(last) if last.style == span.style => last.text.push(c),
                _ => row.push(Span::new(span.style, c.to_string())),
            }
            used += w;
        }
    }
    rows
}

/// Word-wraps styled spans into rows of at most `room` columns (the line's leading spaces
/// kept on the first); rows after the first have `hang` columns less. Runs of spaces
/// between words become one, as Markdown reads them.
fn wrap(spans: &[Span], room: usize, hang: usize) -> Vec<Vec<Span>> {
    if room == usize::MAX {
        return vec![spans.to_vec()];
    }
    let lead = spans
        .iter()
        .map(|s| s.text.as_str())
        .collect::<String>()
        .chars()
        .take_while(|c| *c == ' ')
        .count();
    // Words, each its pieces of one style; spaces are where rows may break.
    let mut words: Vec<Vec<Span>> = Vec::new();
    let mut current: Vec<Span> = Vec::new();
    let mut to_skip = lead;
    for span in spans {
        let mut text = span.text.as_str();
        if to_skip > 0 {
            let spaces = text.len() - text.trim_start_matches(' ').len();
            let skip = spaces.min(to_skip);
            text = &text[skip..];
            to_skip -= skip;
        }
        for (index, piece) in text.split(' ').enumerate() {
            if index > 0 && !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
            if !piece.is_empty() {
                current.push(Span::new(span.style, piece));
            }
        }
    }
    if !current.is_empty() {
        words.push(current);
    }
    let mut rows: Vec<Vec<Span>> = vec![Vec::new()];
    if lead > 0 {
        rows[0].push(Span::new(Style::Plain, " ".repeat(lead)));
    }
    let mut used = lead;
    let mut empty = true; // no word on the row yet
    let limit = |rows: &Vec<Vec<Span>>| if rows.len() == 1 { room } else { room - hang };
    for pieces in words {
        let width: usize = pieces.iter().map(|p| p.text.width()).sum();
        if !empty && used + 1 + width > limit(&rows) {
            rows.push(Vec::new());
            used = 0;
            empty = true;
        }
        if !empty {
            rows.last_mut()
                .expect("a row")
                .push(Span::new(Style::Plain, " "));
            used += 1;
        }
        if used + width <= limit(&rows) {
            rows.last_mut().expect("a row").extend(pieces);
            used += width;
            empty = false;
            continue;
        }
        // A word longer than a row: broken where the row ends.
        for piece in pieces {
            for c in piece.text.chars() {
                let w = UnicodeWidthStr::width(c.encode_utf8(&mut [0; 4]) as &str);
                if used + w > limit(&rows) && used > 0 {
                    rows.push(Vec::new());
                    used = 0;
                }
                let row = rows.last_mut().expect("a row");
                match row.last_mut() {
                    Some(last) if last.style == piece.style && !last.text.ends_with(' ') => {
                        last.text.push(c)
                    }
                    _ => row.push(Span::new(piece.style, c.to_string())),
                }
                used += w;
            }
        }
        empty = false;
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(text: &str, width: usize) -> Vec<String> {
        markdown(text)
            .iter()
            .flat_map(|line| layout(line, 2, width, false, true))
            .collect()
    }

    #[test]
    fn markdown_is_made_plain() {
        let text = "## Findings\n\n- **two** bugs in `main.go`, see [the docs](https://x.dev/a)\n1. first\n> quoted\n```go\nfunc main() {\n\tx := 1\n}\n```\n---\nEscaped \\*star\\* and file_name_here.";
        assert_eq!(
            plain(text, 0),
            [
                "  Findings",
                "",
                "  • two bugs in main.go, see the docs (https://x.dev/a)",
                "  1. first",
                "  │ quoted",
                "      func main() {",
                "          x := 1",
                "      }",
                "  ────",
                "  Escaped *star* and file_name_here.",
            ]
        );
    }

    #[test]
    fn lines_wrap_at_spaces_with_their_hanging_indent() {
        let text = "- one two three four five six seven eight nine ten eleven twelve";
        assert_eq!(
            plain(text, 30),
            [
                "  • one two three four five",
                "    six seven eight nine ten",
                "    eleven twelve",
            ]
        );
        // A word longer than the room is broken, wide characters count two columns.
        assert_eq!(
            plain(&"x".repeat(50), 30),
            [
                "  ".to_owned() + &"x".repeat(28),
                "  ".to_owned() + &"x".repeat(22)
            ]
        );
        assert_eq!(
            plain("日本語のテキストです 日本語のテキストです", 24),
            ["  日本語のテキストです", "  日本語のテキストです"]
        );
    }

    #[test]
    fn colour_paints_styles_and_input_cannot_drive_the_terminal() {
        let line = &markdown("**bold** \u{1b}[2Jand `code`")[0];
        assert_eq!(
            layout(line, 0, 0, true, true),
            ["\u{1b}[1mbold\u{1b}[0m \\u{1b}[2Jand \u{1b}[36mcode\u{1b}[0m"]
        );
        assert_eq!(input_lines("a\tb\r\nc\u{7}"), ["a   b", "c\\u{7}"]);
    }

    #[test]
    fn verbatim_lines_are_cut_or_broken_never_wrapped_at_words() {
        let line = Line::verbatim(Style::Plain, "abc def ghi jkl mno pqr stu vwx yz");
        assert_eq!(layout(&line, 0, 20, false, true), ["abc def ghi jkl mno…"]);
        assert_eq!(
            layout(&line, 0, 20, false, false),
            ["abc def ghi jkl mno ", "pqr stu vwx yz"].map(|s| s.trim_end().to_owned())
        );
    }
}
