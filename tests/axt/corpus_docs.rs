//! The corpus documentation names diagnostics the way the code prints them.
//!
//! Every corpus `README.md` and `EXPECTED.md` says which diagnostics each fixture gives. Those
//! names drift when nobody checks them (`non_json_line` once stood where the code printed
//! `not-json`), so this test reads the docs the way a person would:
//!
//! * a *kind mention* is a backticked token whose kebab-case form is a diagnostic kind, or a
//!   token listed right after `error(s)` / `warning(s)` (backticked, or bare and sharing a
//!   word with a kind, as `dangling` does), or right before one (`` `not-json` error ``);
//!   mentions after `no`, `not`, `without` are negations and only have to be real names;
//! * every mention must be a [`DiagnosticKind`] name exactly as printed;
//! * a mention in a README table row, or in the `EXPECTED.md` section or bullet about one
//!   fixture, must be in that fixture's golden snapshot, with the severity the doc gives.

use std::path::Path;

use axt::model::Provider;
use axt::normalize::DiagnosticKind;

use crate::support::{normalize_corpus, normalize_golden};

/// The normalizer corpora, one per provider: their diagnostics are `DiagnosticKind`s.
fn corpora() -> impl Iterator<Item = &'static str> {
    Provider::ALL.into_iter().map(Provider::as_str)
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Severity {
    Error,
    Warning,
}

#[derive(Debug)]
struct Mention {
    token: String,
    severity: Option<Severity>,
    negated: bool,
}

fn kinds() -> Vec<&'static str> {
    DiagnosticKind::ALL.iter().map(|k| k.as_str()).collect()
}

/// `error(s)` or `warning(s)` opening a list: emphasis and a colon or comma may go around
/// it; a word that ends a sentence, or is quoted or backticked, opens nothing.
fn severity_word(word: &str) -> Option<Severity> {
    let word = word
        .trim_start_matches('*')
        .trim_end_matches([',', ':'])
        .trim_end_matches('*')
        .to_ascii_lowercase();
    severity_named(&word)
}

/// `error(s)` or `warning(s)` right after a token (`` `not-json` error; ``), punctuation
/// allowed.
fn severity_after(word: &str) -> Option<Severity> {
    severity_named(
        &word
            .trim_start_matches('*')
            .trim_end_matches(|c: char| !c.is_ascii_alphabetic())
            .to_ascii_lowercase(),
    )
}

fn severity_named(word: &str) -> Option<Severity> {
    if !word.bytes().all(|b| b.is_ascii_lowercase()) {
        return None;
    }
    match word {
        "error" | "errors" => Some(Severity::Error),
        "warning" | "warnings" => Some(Severity::Warning),
        _ => None,
    }
}

/// The token a word carries, without punctuation or emphasis around it, and whether it was
/// backticked.
fn token(word: &str) -> (String, bool) {
    let trimmed = word.trim_matches(|c: char| matches!(c, ',' | ';' | '.' | ':' | '(' | ')' | '*'));
    match trimmed.strip_prefix('`') {
        Some(inner) => match inner.find('`') {
            Some(end) => (inner[..end].to_owned(), true),
            None => (inner.to_owned(), true),
        },
        None => (trimmed.to_owned(), false),
    }
}

/// The kind mentions in a block of text, in order.
fn mentions(text: &str) -> Vec<Mention> {
    let kinds = kinds();
    let words: Vec<&str> = text.split_whitespace().collect();
    let mut found = Vec::new();
    // The severity of the list being read, while it goes on.
    let mut listing: Option<Severity> = None;
    for (at, word) in words.iter().enumerate() {
        if let Some(severity) = severity_word(word) {
            listing = Some(severity);
            continue;
        }
        let (token, backticked) = token(word);
        let next = words.get(at + 1).copied();
        let before = next.and_then(severity_after);
        let continues = word.ends_with(',') || next == Some("and");
        let looks_like_kind = |token: &str| {
            !token.is_empty()
                && token
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b == b'-' || b == b'_')
        };
        let named = kinds.contains(&token.replace('_', "-").as_str());
        // A bare word in a list is a kind when it shares a word with one (`dangling`,
        // `non-json-line`): plain English in such lists (`non-fatal`, `usage-limit`) does
        // not. Before a severity word only an exact name counts.
        let kind_words = |token: &str| {
            token.split(['-', '_']).any(|word| {
                kinds
                    .iter()
                    .any(|kind| kind.split('-').any(|part| part == word))
            })
        };
        let is_mention = looks_like_kind(&token)
            && if backticked {
                named || listing.is_some() || before.is_some()
            } else {
                (listing.is_some() && kind_words(&token))
                    || (before.is_some() && kinds.contains(&token.as_str()))
            };
        if is_mention {
            let negated = at > 0
                && matches!(
                    words[at - 1].to_ascii_lowercase().as_str(),
                    "no" | "not" | "(not" | "without"
                );
            found.push(Mention {
                token,
                severity: listing.or(before),
                negated,
            });
        }
        if !(is_mention && continues) {
            listing = None;
        }
    }
    found
}

/// The fixture a piece of documentation is about: the first `ok/...` or `err/...` file it
/// names, or a bullet's leading file name (abbreviated with `…` in places).
fn fixture_named(text: &str, fixtures: &[String]) -> Option<String> {
    for word in text.split_whitespace() {
        let (name, _) = token(word);
        let name = name.trim_end_matches('…');
        if name.len() < 4 {
            continue;
        }
        let found = fixtures.iter().find(|fixture| {
            fixture.as_str() == name
                || (!name.contains('/')
                    && (fixture.ends_with(&format!("/{name}"))
                        || (word.contains('…')
                            && fixture
                                .split('/')
                                .nth(1)
                                .is_some_and(|f| f.starts_with(name)))))
        });
        if let Some(fixture) = found {
            return Some(fixture.clone());
        }
    }
    None
}

fn fixtures(corpus: &str) -> Vec<String> {
    let mut found = Vec::new();
    for outcome in ["ok", "err"] {
        let dir = normalize_corpus(corpus).join(outcome);
        for entry in std::fs::read_dir(dir).unwrap() {
            let name = entry.unwrap().file_name().into_string().unwrap();
            if [".jsonl", ".json", ".sse"]
                .iter()
                .any(|ext| name.ends_with(ext))
            {
                found.push(format!("{outcome}/{name}"));
            }
        }
    }
    found
}

/// The pieces of a doc that are each about one fixture, with the fixture: README table rows
/// (the first file the row names), `EXPECTED.md` sections whose heading names a fixture, and
/// bullets that start with one. Other prose names fixtures in passing and is not about one.
fn pieces(doc: &str, fixtures: &[String]) -> Vec<(String, String)> {
    let mut pieces: Vec<(Option<String>, String)> = Vec::new();
    let mut section: Option<String> = None;
    for line in doc.lines() {
        let first_word = line
            .trim_start_matches(['-', ' '])
            .split_whitespace()
            .next();
        if line.starts_with('#') {
            section = fixture_named(line, fixtures);
            pieces.push((section.clone(), String::new()));
        } else if line.starts_with('|') {
            pieces.push((fixture_named(line, fixtures), String::new()));
        } else if line.starts_with("- ") {
            let named = first_word.and_then(|word| fixture_named(word, fixtures));
            pieces.push((named.or_else(|| section.clone()), String::new()));
        } else if line.trim().is_empty()
            && pieces.last().is_some_and(|(_, text)| text.starts_with('|'))
        {
            pieces.push((section.clone(), String::new()));
        }
        match pieces.last_mut() {
            Some((_, text)) => {
                text.push_str(line);
                text.push('\n');
            }
            None => pieces.push((None, format!("{line}\n"))),
        }
        if line.starts_with('|') {
            pieces.push((section.clone(), String::new()));
        }
    }
    pieces
        .into_iter()
        .filter_map(|(fixture, text)| Some((fixture?, text)))
        .collect()
}

fn golden_diagnostics(corpus: &str, fixture: &str) -> String {
    let (outcome, name) = fixture.split_once('/').unwrap();
    let stem = Path::new(name).file_stem().unwrap().to_str().unwrap();
    let path = normalize_golden(corpus)
        .join(outcome)
        .join(format!("{stem}.snap"));
    let snapshot =
        std::fs::read_to_string(&path).unwrap_or_else(|_| panic!("{} exists", path.display()));
    let start = snapshot
        .find("## Diagnostics")
        .expect("a Diagnostics section");
    let end = snapshot[start..]
        .find("\n## ")
        .map_or(snapshot.len(), |at| start + at + 1);
    snapshot[start..end].to_owned()
}

#[test]
fn corpus_docs_name_only_real_diagnostic_kinds() {
    let kinds = kinds();
    let mut wrong = Vec::new();
    for corpus in corpora() {
        for doc in ["README.md", "EXPECTED.md"] {
            let path = normalize_corpus(corpus).join(doc);
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            for mention in mentions(&text) {
                if !kinds.contains(&mention.token.as_str()) {
                    wrong.push(format!(
                        "corpus/normalize/{corpus}/{doc}: `{}`",
                        mention.token
                    ));
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "not diagnostic kinds (the code prints {kinds:?}):\n{}",
        wrong.join("\n")
    );
}

#[test]
fn corpus_docs_expect_what_the_goldens_show() {
    let mut wrong = Vec::new();
    for corpus in corpora() {
        let fixtures = fixtures(corpus);
        for doc in ["README.md", "EXPECTED.md"] {
            let path = normalize_corpus(corpus).join(doc);
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            for (fixture, piece) in pieces(&text, &fixtures) {
                let golden = golden_diagnostics(corpus, &fixture);
                for mention in mentions(&piece).into_iter().filter(|m| !m.negated) {
                    let printed = match mention.severity {
                        Some(Severity::Error) => format!("error[{}]", mention.token),
                        Some(Severity::Warning) => format!("warning[{}]", mention.token),
                        None => format!("[{}]", mention.token),
                    };
                    if !golden.contains(&printed) {
                        wrong.push(format!(
                            "corpus/normalize/{corpus}/{doc} expects {printed} for {fixture}; its golden has:\n{golden}"
                        ));
                    }
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn kind_mentions_are_read_as_a_person_reads_them() {
    let tokens = |text: &str| -> Vec<(String, Option<Severity>, bool)> {
        mentions(text)
            .into_iter()
            .map(|m| (m.token, m.severity, m.negated))
            .collect()
    };
    let e = Some(Severity::Error);
    let w = Some(Severity::Warning);
    assert_eq!(
        tokens(
            "one error `non_json_line` (line 3); warnings `dangling-tool-use`, `missing-terminal`"
        ),
        [
            ("non_json_line".into(), e, false),
            ("dangling-tool-use".into(), w, false),
            ("missing-terminal".into(), w, false)
        ]
    );
    assert_eq!(
        tokens("Diagnostics: error truncated L6, warning missing-terminal."),
        [
            ("truncated".into(), e, false),
            ("missing-terminal".into(), w, false)
        ]
    );
    assert_eq!(
        tokens("warnings incomplete-block, dangling, missing-terminal; status incomplete"),
        [
            ("incomplete-block".into(), w, false),
            ("dangling".into(), w, false),
            ("missing-terminal".into(), w, false)
        ]
    );
    assert_eq!(
        tokens("a `not-json` error; the rest read; no invalid-tool-input; (not `not-json`: x)"),
        [
            ("not-json".into(), e, false),
            ("not-json".into(), None, true)
        ]
    );
    assert_eq!(
        tokens("at least one **error diagnostic**; result `error_max_turns`; a `tool_use`"),
        []
    );
}
