//! The page: the front end's files (`page/`), embedded at build time, put together with the
//! data into one HTML document, and the Content-Security-Policy that lets only them run.
//!
//! The policy is `default-src 'none'`: nothing is fetched, framed or connected to, and no
//! inline script or style runs unless its SHA-256 hash is in the policy. The hashes are those
//! of the embedded files, computed here when the page is written, so an edit to a file can
//! never leave a stale hash behind. Trusted Types are required for script sinks, with no
//! policy allowed: in a browser that enforces them, even a bug that handed a string to
//! `innerHTML` would throw instead of parsing markup.
//!
//! Data blocks (`<script type="application/json">`) are not scripts: the browser never runs
//! them, and the policy does not apply to them. Their text is JSON with every `<` written as
//! `\u003c` ([`ScriptText`]), so no input can close the block or open a comment inside it.
//!
//! This file owns the markup around the data and the policy; what goes into the data is the
//! `data` file's, and nothing from the input reaches the markup except through a data block.

use std::io::{self, Write};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use sha2::{Digest, Sha256};

/// The page's skeleton: `{{...}}` marks where the policy, the style, the data and the
/// scripts go.
const TEMPLATE: &str = include_str!("page/index.html");

/// The style sheet.
const STYLE: &str = include_str!("page/view.css");

/// The scripts, in the order they run: each defines its part of the one `AxtView` namespace
/// the first creates, and `main.js` starts the page.
const SCRIPTS: [(&str, &str); 9] = [
    ("core.js", include_str!("page/core.js")),
    ("markdown.js", include_str!("page/markdown.js")),
    ("diff.js", include_str!("page/diff.js")),
    ("charts.js", include_str!("page/charts.js")),
    ("timeline.js", include_str!("page/timeline.js")),
    ("stream.js", include_str!("page/stream.js")),
    ("runs.js", include_str!("page/runs.js")),
    ("search.js", include_str!("page/search.js")),
    ("main.js", include_str!("page/main.js")),
];

/// The Content-Security-Policy of the page: nothing but the embedded style and scripts.
pub(super) fn content_security_policy() -> String {
    let scripts: Vec<String> = SCRIPTS.iter().map(|(_, code)| source(code)).collect();
    format!(
        "default-src 'none'; script-src {}; style-src {}; base-uri 'none'; form-action 'none'; \
         require-trusted-types-for 'script'; trusted-types 'none'",
        scripts.join(" "),
        source(STYLE)
    )
}

/// A CSP hash source for an inline element's text.
fn source(text: &str) -> String {
    format!(
        "'sha256-{}'",
        STANDARD.encode(Sha256::digest(text.as_bytes()))
    )
}

/// Writes the page around the data `write_data` writes (its data blocks, each opened and
/// closed with [`data_block`] and [`end_block`]).
pub(super) fn write_page<W: Write>(
    out: &mut W,
    write_data: impl FnOnce(&mut W) -> io::Result<()>,
) -> io::Result<()> {
    let (head, rest) = split(TEMPLATE, "{{DATA}}");
    let head = head
        .replace("{{CSP}}", &content_security_policy())
        .replace("{{STYLE}}", STYLE);
    out.write_all(head.as_bytes())?;
    write_data(out)?;
    let mut scripts = String::new();
    for (_, code) in SCRIPTS {
        scripts.push_str("<script>");
        scripts.push_str(code);
        scripts.push_str("</script>\n");
    }
    out.write_all(rest.replace("{{SCRIPTS}}", &scripts).as_bytes())
}

fn split<'a>(text: &'a str, mark: &str) -> (&'a str, &'a str) {
    text.split_once(mark)
        .expect("the page template has each of its marks once")
}

/// Opens a data block with the element id `id` (an id of the page's own, never input).
pub(super) fn data_block(out: &mut impl Write, id: &str) -> io::Result<()> {
    write!(out, "<script type=\"application/json\" id=\"{id}\">")
}

/// Closes a data block.
pub(super) fn end_block(out: &mut impl Write) -> io::Result<()> {
    out.write_all(b"</script>\n")
}

/// A writer of JSON text into a data block: every `<` becomes `\u003c`. In JSON text a `<`
/// can only be inside a string, where the escape means the same character, so the data
/// reads back unchanged while the HTML parser never sees a tag, a `</script` or a `<!--`.
pub(super) struct ScriptText<W>(pub(super) W);

impl<W: Write> Write for ScriptText<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.write_all(buf)?;
        Ok(buf.len())
    }

    fn write_all(&mut self, mut buf: &[u8]) -> io::Result<()> {
        while let Some(at) = memchr::memchr(b'<', buf) {
            self.0.write_all(&buf[..at])?;
            self.0.write_all(b"\\u003c")?;
            buf = &buf[at + 1..];
        }
        self.0.write_all(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn script_text_escapes_every_angle_bracket_and_reads_back_the_same() {
        let value = serde_json::json!({"a": "</script><!-- <b>", "<k>": ["<"]});
        let mut out = ScriptText(Vec::new());
        serde_json::to_writer(&mut out, &value).unwrap();
        let text = String::from_utf8(out.0).unwrap();
        assert!(!text.contains('<'), "{text}");
        assert_eq!(
            text,
            r#"{"\u003ck>":["\u003c"],"a":"\u003c/script>\u003c!-- \u003cb>"}"#
        );
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&text).unwrap(),
            value
        );
    }

    #[test]
    fn the_embedded_code_cannot_end_its_own_element() {
        // A `</script` or `</style` inside the code would end the element early, and the
        // hash would then be of a different text than the browser runs.
        for (name, code) in SCRIPTS {
            let lower = code.to_ascii_lowercase();
            assert!(
                !lower.contains("</script") && !lower.contains("<!--"),
                "{name}"
            );
        }
        assert!(!STYLE.to_ascii_lowercase().contains("</style"));
    }

    #[test]
    fn the_policy_names_a_hash_per_script_and_allows_nothing_else() {
        let policy = content_security_policy();
        assert!(policy.starts_with("default-src 'none'; script-src 'sha256-"));
        assert_eq!(policy.matches("'sha256-").count(), SCRIPTS.len() + 1);
        assert!(!policy.contains("unsafe"), "{policy}");
        // The known vector: SHA-256 of "abc".
        assert_eq!(
            source("abc"),
            "'sha256-ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0='"
        );
    }

    #[test]
    fn the_template_has_each_mark_once() {
        for mark in ["{{CSP}}", "{{STYLE}}", "{{DATA}}", "{{SCRIPTS}}"] {
            assert_eq!(TEMPLATE.matches(mark).count(), 1, "{mark}");
        }
    }
}
