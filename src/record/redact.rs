//! Masking credentials in events: a reusable redactor, usable as a recorder mask and by
//! any other writer (exporters) that must not leak what the recorder would have masked.
//!
//! The redactor replaces each credential with `[REDACTED:<kind>]`, so a reader sees that
//! something was there and what it was, never its value. Where a credential is recognized by
//! the text around it (`Bearer <token>`, `aws_secret_access_key = <key>`), only the value is
//! replaced and the context is kept.
//!
//! It masks *content*, not identifiers: every string a model, a tool or a step produced or
//! was given (block text, thinking, commands, stream chunks, tool inputs and outputs, step
//! results, error texts, what a citation quotes or points at, and every string nested inside
//! their JSON values). It leaves alone run ids, paths, names, tool, call and file ids,
//! timestamps, object keys, and thinking signatures: those are opaque provider tokens a
//! replay must send back unchanged, and a base64 signature could contain a run of
//! characters that looks like a key.
//!
//! Patterns are deliberately specific (known prefixes, or a key name before the value):
//! a false positive damages a transcript as surely as a miss leaks a secret. Generic
//! high-entropy detection is out of scope.

use std::borrow::Cow;
use std::ops::Range;
use std::sync::LazyLock;

use regex::{Regex, RegexSet};
use serde_json::Value;

use crate::model::{Block, Citation, ContentBlock, ExchangeEvent, Payload};

/// One kind of credential: a name for the marker and a pattern. When the pattern has a
/// capture group 1, only that group is replaced.
#[derive(Clone, Debug)]
struct Rule {
    kind: String,
    regex: Regex,
}

/// Replaces credentials in strings, JSON values and events with `[REDACTED:<kind>]`.
///
/// Cheap to share (`&Redactor` across threads). Rules apply in order, so a more specific
/// kind listed first wins over a generic one that would match the same text.
#[derive(Clone, Debug)]
pub struct Redactor {
    rules: Vec<Rule>,
    /// All patterns at once: most strings contain no secret, and one pass of the set tells.
    any: RegexSet,
    /// The same patterns without their word boundaries, when they all compile so: a set
    /// that matches wherever `any` does (and a little more), much faster. A Unicode word
    /// boundary stops the regex crate's lazy DFA at the first non-ASCII character of a
    /// text, and a set of patterns then falls back to its slowest engine over the whole
    /// text (profiled: 96% of `axt export --to otlp`'s time). So this set looks first, and
    /// only the rules it finds are checked against their exact pattern.
    loose: Option<RegexSet>,
}

/// The built-in credential patterns, in the order they apply.
const CREDENTIALS: &[(&str, &str)] = &[
    // Whole block, armor included; an unterminated block (cut output) is masked to the end.
    // PEM (`RSA`, `EC`, `OPENSSH`, `ENCRYPTED`, ...) and PGP (`... PRIVATE KEY BLOCK-----`).
    (
        "private_key",
        r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\z)",
    ),
    // Before openai_key: `sk-ant-...` would match `sk-...` too.
    ("anthropic_key", r"\bsk-ant-[A-Za-z0-9_-]{20,}"),
    // Project/service keys contain `-` and `_`; the classic form is alphanumeric only, which
    // keeps words like `sk-learn-compatible-estimators` out.
    (
        "openai_key",
        r"\bsk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}|\bsk-[A-Za-z0-9]{20,}",
    ),
    (
        "github_token",
        r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})",
    ),
    ("aws_access_key_id", r"\b(?:AKIA|ASIA)[A-Z0-9]{16}\b"),
    // A secret key is 40 base64 characters with no prefix: only recognizable by its name.
    // `aws_secret_access_key`, `AWS_SECRET_KEY`, and STS's JSON `"SecretAccessKey"`.
    (
        "aws_secret_access_key",
        r#"(?i)\b(?:aws_?secret(?:_?access)?_?key|secret_?access_?key)["']?\s*[:=]\s*["']?([A-Za-z0-9/+=]{40})"#,
    ),
    // STS temporary credentials: `AWS_SESSION_TOKEN=`, `aws_session_token =`, STS's JSON
    // `"SessionToken"` (hundreds of base64 characters; 40 at least keeps `session_token =
    // None` and short ids out).
    (
        "aws_session_token",
        r#"(?i)\b(?:aws_?)?session_?token["']?\s*[:=]\s*["']?([A-Za-z0-9/+=]{40,})"#,
    ),
    // Google OAuth access tokens (`gcloud auth print-access-token`, metadata server).
    ("gcp_access_token", r"\bya29\.[0-9A-Za-z_.-]{20,}"),
    // At least 16 characters, so "bearer of bad news" stays as it is.
    (
        "bearer_token",
        r"(?i)\bbearer\s+([A-Za-z0-9\-._~+/]{16,}=*)",
    ),
    // Only after the `Authorization` header's name: "basic" alone is an ordinary word.
    (
        "basic_auth",
        r#"(?i)\bauthorization["']?\s*[:=]\s*["']?basic\s+([A-Za-z0-9+/]{4,}={0,2})"#,
    ),
    // Bot, user, app-level, refresh (`xoxe-`, `xoxe.xoxp-`) and workspace tokens; and
    // incoming-webhook URLs, which post to a channel on their own.
    (
        "slack_token",
        r"\bxox[abposre][.-][A-Za-z0-9.-]{10,}|\bxapp-[0-9]-[A-Za-z0-9-]{10,}",
    ),
    (
        "slack_webhook",
        r"https://hooks\.slack\.com/services/T[A-Za-z0-9]+/B[A-Za-z0-9]+/[A-Za-z0-9]{16,}",
    ),
    ("google_api_key", r"\bAIza[0-9A-Za-z_-]{35}"),
    // Hugging Face user access tokens: `hf_` and 34 alphanumerics (`hf_hub_download` has an
    // underscore where the token has none).
    ("huggingface_token", r"\bhf_[A-Za-z0-9]{30,}"),
    // GitLab personal, project, group, deploy, runner, trigger, CI job, feed, OAuth,
    // agent, incoming-mail and SCIM tokens: a `gl...-` prefix and 20 characters.
    (
        "gitlab_token",
        r"\bgl(?:pat|dt|rt|ptt|cbt|imt|ft|oas|soat|agent|ffct|wt)-[0-9A-Za-z_-]{20,}",
    ),
    // npm access tokens: `npm_` and 36 alphanumerics (`npm_config_cache` has underscores).
    ("npm_token", r"\bnpm_[A-Za-z0-9]{36,}"),
    // Secret and restricted keys, and webhook signing secrets; `pk_` keys are publishable.
    (
        "stripe_key",
        r"\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,}|\bwhsec_[0-9A-Za-z]{24,}",
    ),
    // Header and payload both JSON objects (`eyJ` is `{"`), and a signature: after
    // bearer_token, so `Bearer <jwt>` keeps its kind.
    (
        "jwt",
        r"\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{10,}",
    ),
    // Only the password of a database URL: user, host and database stay readable. The user
    // may be empty (`redis://:PASSWORD@host`).
    (
        "database_password",
        r"(?i)\b(?:postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|rediss?|amqps?|mssql|sqlserver|clickhouse|cockroachdb)://[^\s:/@]*:([^\s@/]+)@",
    ),
    // The password in any other URL's userinfo (`https://user:PASSWORD@host`, `ftp://`,
    // a git remote): after database_password, which names the database schemes' kind. A
    // port (`host:8080/`) has no `@` after it.
    (
        "url_password",
        r"(?i)\b[a-z][a-z0-9+.-]*://[^\s:/@]*:([^\s@/\[][^\s@/]*)@",
    ),
    // Named secrets, only the value: `password=`, `DB_PASSWORD=`, `client_secret =`
    // (a value that starts with `$`, `<` or `{` is a reference, not a secret; a space after
    // `=` only before a quote, so `password= PWD=/x` is no assignment), the same as a
    // quoted JSON or YAML key (`"password": "..."`), and `--password VALUE`. `PWD=` (the
    // shell's working directory) and `passwordless=` are not assignments of these names.
    (
        "password",
        r#"(?i)\b(?:[a-z0-9]+_)*(?:password|passwd|secret)\s*=(?:\s*["'])?([^\s"'&;,$<{][^\s"'&;,]*)"#,
    ),
    (
        "password",
        r#"(?i)["'](?:[a-z0-9]+_)*(?:password|passwd|secret)["']\s*:\s*"([^"\s$<{][^"]*)""#,
    ),
    (
        "password",
        r#"(?i)--(?:password|passwd)[= ]([^\s"'&;,$<{-][^\s"'&;,]*)"#,
    ),
];

static CREDENTIAL_REDACTOR: LazyLock<Redactor> = LazyLock::new(|| {
    Redactor::new(CREDENTIALS.iter().copied()).expect("the built-in patterns compile")
});

impl Redactor {
    /// The built-in redactor for common credentials: `private_key` (PEM and PGP private key
    /// blocks), `anthropic_key` (`sk-ant-...`), `openai_key` (`sk-...`, `sk-proj-...`),
    /// `github_token` (`ghp_...`, `gho_...`, `ghu_...`, `ghs_...`, `ghr_...`,
    /// `github_pat_...`), `aws_access_key_id` (`AKIA...`, `ASIA...`),
    /// `aws_secret_access_key` (the value after an `aws_secret_access_key` name or STS's
    /// `SecretAccessKey`), `aws_session_token` (the value after `AWS_SESSION_TOKEN`,
    /// `aws_session_token` or `SessionToken`), `gcp_access_token` (`ya29....`),
    /// `bearer_token` (the token after `Bearer`), `basic_auth` (the credentials after
    /// `Authorization: Basic`), `slack_token` (`xoxb-...`, `xoxp-...`, `xoxe-...`,
    /// `xapp-...`), `slack_webhook` (`https://hooks.slack.com/services/...`),
    /// `google_api_key` (`AIza...`), `huggingface_token` (`hf_...`), `gitlab_token`
    /// (`glpat-...`, `gldt-...`, `glrt-...` and the other `gl...-` tokens), `npm_token`
    /// (`npm_...`), `stripe_key` (`sk_live_...`, `rk_test_...`, `whsec_...`), `jwt` (three
    /// base64url parts, the first two JSON), `database_password` (the password in
    /// `postgres://user:PASSWORD@host`, `redis://:PASSWORD@host` and other database
    /// schemes), `url_password` (the password in any other URL, `https://user:PASSWORD@host`),
    /// and `password` (the value after `password=`, `passwd=`, `secret=`, `DB_PASSWORD=`,
    /// `"password": "..."` or `--password`).
    pub fn credentials() -> &'static Redactor {
        &CREDENTIAL_REDACTOR
    }

    /// A redactor with rules of your own: `(kind, pattern)` pairs in the `regex` crate's
    /// syntax, applied in order. When a pattern has a capture group, only the first group
    /// is replaced.
    pub fn new<'a>(
        rules: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<Redactor, regex::Error> {
        let rules = rules
            .into_iter()
            .map(|(kind, pattern)| {
                Ok(Rule {
                    kind: kind.to_owned(),
                    regex: Regex::new(pattern)?,
                })
            })
            .collect::<Result<Vec<_>, regex::Error>>()?;
        let any = RegexSet::new(rules.iter().map(|rule| rule.regex.as_str()))?;
        let loose = RegexSet::new(
            rules
                .iter()
                .map(|rule| without_word_boundaries(rule.regex.as_str())),
        )
        .ok();
        Ok(Redactor { rules, any, loose })
    }

    /// The indexes of the rules whose pattern matches `text`, in order: exactly what
    /// `any.matches` gives, found through `loose` where there is one.
    fn matching(&self, text: &str) -> Vec<usize> {
        match &self.loose {
            Some(loose) => loose
                .matches(text)
                .iter()
                .filter(|&index| self.rules[index].regex.is_match(text))
                .collect(),
            None => self.any.matches(text).iter().collect(),
        }
    }

    /// `text` with every credential replaced; borrowed when there was none.
    pub fn redact<'t>(&self, text: &'t str) -> Cow<'t, str> {
        self.redact_counted(text).0
    }

    /// `bytes` with every credential in its UTF-8 parts replaced; borrowed when there was
    /// none. Bytes that are not UTF-8 are kept as they are (a credential split by one is not
    /// found): this is for raw provider output, which is text but not guaranteed to be.
    pub fn redact_bytes<'t>(&self, bytes: &'t [u8]) -> Cow<'t, [u8]> {
        if let Ok(text) = std::str::from_utf8(bytes) {
            return match self.redact(text) {
                Cow::Borrowed(_) => Cow::Borrowed(bytes),
                Cow::Owned(text) => Cow::Owned(text.into_bytes()),
            };
        }
        let mut out = Vec::with_capacity(bytes.len());
        let mut changed = false;
        for chunk in bytes.utf8_chunks() {
            let redacted = self.redact(chunk.valid());
            changed |= matches!(redacted, Cow::Owned(_));
            out.extend_from_slice(redacted.as_bytes());
            out.extend_from_slice(chunk.invalid());
        }
        if changed {
            Cow::Owned(out)
        } else {
            Cow::Borrowed(bytes)
        }
    }

    /// Redacts `text` in place; returns how many credentials were replaced.
    pub fn redact_string(&self, text: &mut String) -> usize {
        match self.redact_counted(text) {
            (Cow::Borrowed(_), _) => 0,
            (Cow::Owned(replaced), count) => {
                *text = replaced;
                count
            }
        }
    }

    /// Where the credentials in `text` are, as ranges of it in order, each with its kind:
    /// what [`redact`](Redactor::redact) replaces (a match overlapping an earlier rule's is
    /// left out, as the earlier rule's marker would have hidden it).
    pub(crate) fn spans(&self, text: &str) -> Vec<(Range<usize>, &str)> {
        let mut spans: Vec<(Range<usize>, &str)> = Vec::new();
        for index in self.matching(text) {
            let rule = &self.rules[index];
            for captures in rule.regex.captures_iter(text) {
                let Some(secret) = captures.get(1).or_else(|| captures.get(0)) else {
                    continue;
                };
                let range = secret.range();
                if spans
                    .iter()
                    .all(|(r, _)| r.end <= range.start || range.end <= r.start)
                {
                    spans.push((range, rule.kind.as_str()));
                }
            }
        }
        spans.sort_by_key(|(range, _)| range.start);
        spans
    }

    fn redact_counted<'t>(&self, text: &'t str) -> (Cow<'t, str>, usize) {
        let matched = self.matching(text);
        let mut text = Cow::Borrowed(text);
        let mut count = 0;
        for index in matched {
            // A rule can find nothing left to replace when an earlier one covered its match.
            if let Some((replaced, found)) = self.rules[index].apply(&text) {
                text = Cow::Owned(replaced);
                count += found;
            }
        }
        (text, count)
    }

    /// Redacts every string inside `value` (not object keys); returns how many credentials
    /// were replaced.
    pub fn redact_value(&self, value: &mut Value) -> usize {
        match value {
            Value::String(text) => self.redact_string(text),
            Value::Array(items) => items.iter_mut().map(|item| self.redact_value(item)).sum(),
            Value::Object(fields) => fields
                .values_mut()
                .map(|field| self.redact_value(field))
                .sum(),
            Value::Null | Value::Bool(_) | Value::Number(_) => 0,
        }
    }

    /// Redacts one content block's content (see the module documentation for what is
    /// content); returns how many credentials were replaced.
    pub fn redact_block(&self, block: &mut ContentBlock) -> usize {
        match &mut block.block {
            Block::Text {
                text, citations, ..
            } => {
                let mut count = self.redact_string(text);
                for citation in citations {
                    count += self.redact_citation(citation);
                }
                count
            }
            Block::Thinking { thinking, .. } => self.redact_string(thinking),
            Block::ToolUse { tool_input, .. } => self.redact_value(tool_input),
            Block::ToolResult { tool_content, .. } => self.redact_value(tool_content),
            Block::Command { command, .. } => self.redact_string(command),
            Block::Stream { chunk } => self.redact_string(chunk),
            Block::Unrecognized(unrecognized) => self.redact_value(&mut unrecognized.raw),
        }
    }

    /// Redacts what a citation quotes or points at (a URL can carry a token).
    fn redact_citation(&self, citation: &mut Citation) -> usize {
        let Citation {
            kind: _,
            url,
            title,
            file_id: _,
            filename,
            cited_text,
            start_index: _,
            end_index: _,
            extra,
        } = citation;
        [url, title, filename, cited_text]
            .into_iter()
            .flatten()
            .map(|text| self.redact_string(text))
            .sum::<usize>()
            + extra
                .values_mut()
                .map(|value| self.redact_value(value))
                .sum::<usize>()
    }

    /// Redacts an event's content; returns how many credentials were replaced.
    pub fn redact_event(&self, event: &mut ExchangeEvent) -> usize {
        match &mut event.payload {
            Payload::None => 0,
            Payload::Blocks(blocks) => self.redact_blocks(blocks),
            Payload::Message(message) => self.redact_blocks(&mut message.blocks),
            Payload::Tool(tool) => {
                self.redact_value(&mut tool.input)
                    + self.redact_value(&mut tool.output)
                    + tool
                        .error
                        .as_mut()
                        .map_or(0, |e| self.redact_string(e.to_mut()))
            }
            Payload::Step(step) => {
                self.redact_value(&mut step.result)
                    + step.error.as_mut().map_or(0, |e| self.redact_string(e))
            }
            Payload::Raw(value) | Payload::Malformed { value, .. } => self.redact_value(value),
        }
    }

    fn redact_blocks(&self, blocks: &mut [ContentBlock]) -> usize {
        blocks
            .iter_mut()
            .map(|block| self.redact_block(block))
            .sum()
    }
}

/// `pattern` with its word-boundary assertions (`\b`, `\B`, `\b{...}`, `\<`, `\>`) taken
/// out: a pattern that matches wherever `pattern` does, since an assertion only ever
/// narrows where a pattern matches. Every other escape (`\\b` is a backslash and a `b`)
/// is kept as written; a pattern this turns into one that does not compile leaves the
/// redactor without its loose set.
fn without_word_boundaries(pattern: &str) -> String {
    let mut loose = String::with_capacity(pattern.len());
    let mut chars = pattern.chars().peekable();
    while let Some(char) = chars.next() {
        if char != '\\' {
            loose.push(char);
            continue;
        }
        match chars.next() {
            Some('b' | 'B') => {
                if chars.peek() == Some(&'{') {
                    // `\b{start}`, `\b{end}`, `\b{start-half}`, `\b{end-half}`.
                    for inside in chars.by_ref() {
                        if inside == '}' {
                            break;
                        }
                    }
                }
            }
            Some('<' | '>') => {}
            Some(escaped) => {
                loose.push('\\');
                loose.push(escaped);
            }
            None => loose.push('\\'),
        }
    }
    loose
}

impl Rule {
    /// `text` with this rule's matches replaced and how many there were; `None` for none.
    fn apply(&self, text: &str) -> Option<(String, usize)> {
        let marker = format!("[REDACTED:{}]", self.kind);
        let mut out = String::new();
        let mut copied = 0;
        let mut count = 0;
        for captures in self.regex.captures_iter(text) {
            let Some(secret) = captures.get(1).or_else(|| captures.get(0)) else {
                continue;
            };
            out.push_str(&text[copied..secret.start()]);
            out.push_str(&marker);
            copied = secret.end();
            count += 1;
        }
        if count == 0 {
            return None;
        }
        out.push_str(&text[copied..]);
        Some((out, count))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The loose set finds exactly the rules the exact set finds, word boundaries next to
    /// non-ASCII word characters (`é`, the long `ſ` that `(?i)` folds to `s`) included.
    #[test]
    fn the_loose_set_finds_exactly_the_rules_the_exact_set_finds() {
        let redactor = Redactor::credentials();
        assert!(
            redactor.loose.is_some(),
            "every built-in pattern compiles loose"
        );
        let key = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345";
        let fragments = [
            "",
            " ",
            "é",
            "ſ",
            "日本",
            "x",
            "_",
            key,
            "AKIAABCDEFGHIJKLMNOP",
            "ſecret=hunter2",
            "password=hunter2",
            "Bearer abcdefghijklmnop0123",
            "bearer of bad news",
            "https://user:pa55@host/",
            "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
            "eyJhbGciOi.eyJzdWIiOi.abcdefghijkl",
            "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n",
        ];
        let mut checked = 0;
        for a in fragments {
            for b in fragments {
                for c in fragments {
                    let text = format!("{a}{b}{c}");
                    let exact: Vec<usize> = redactor.any.matches(&text).iter().collect();
                    assert_eq!(redactor.matching(&text), exact, "{text:?}");
                    checked += usize::from(!exact.is_empty());
                }
            }
        }
        assert!(checked > 1000, "{checked} texts with a credential");
        // Next to a non-ASCII word character there is no word boundary: nothing to mask.
        assert_eq!(redactor.redact(&format!("é{key}")), format!("é{key}"));
        assert_eq!(
            redactor.redact(&format!("é {key}")),
            "é [REDACTED:anthropic_key]"
        );
    }

    #[test]
    fn only_word_boundaries_are_taken_out_of_a_pattern() {
        assert_eq!(
            without_word_boundaries(r"\bsk-\B\b{start}x\b{end-half}\<y\>z\\b\d\z"),
            r"sk-xyz\\b\d\z"
        );
        assert_eq!(without_word_boundaries(r"(?-u:\b)a"), "(?-u:)a");
    }
}
