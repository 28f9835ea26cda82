//! One provider registry: every list of providers derives from `Provider::ALL`
//! (`src/model/provider.rs`), or is checked against it here.
//!
//! Rust code derives its lists from `Provider::ALL`, `FromStr` and exhaustive matches (the
//! adapter factory, detection, the CLI's value parser, the bench streams in
//! `benches/providers/`, the exporters' vendor names), so the compiler points at it, and
//! the tests iterate `Provider::ALL`. What the compiler cannot see is listed in
//! [`PLACES`] (a file or folder each provider must have) and [`LISTS`] (a file that must name
//! every provider, in a given form), and checked for every provider. And so that no new list
//! escapes both, every line of the repository's code and docs that names three providers or
//! more must be in a file of [`LISTS`]: a list nobody checks fails here, with the advice to
//! derive it or add it.

use std::collections::BTreeSet;

use axt::model::Provider;

use crate::support::{root, walk};

/// A provider's path, from the repository's root.
type PathOf = fn(Provider) -> String;

/// What a provider must have on disk.
const PLACES: &[(&str, PathOf)] = &[
    ("its corpus's clean fixtures", |p| {
        format!("corpus/normalize/{p}/ok")
    }),
    ("its corpus's broken fixtures", |p| {
        format!("corpus/normalize/{p}/err")
    }),
    ("its corpus's README", |p| {
        format!("corpus/normalize/{p}/README.md")
    }),
    ("its golden summary", |p| {
        format!("golden/normalize/{p}/summary.snap")
    }),
    ("its fuzz target", |p| {
        format!("fuzz/fuzz_targets/{p}_chunked.rs")
    }),
    ("its fuzz dictionary (make fuzz-dicts)", |p| {
        format!("fuzz/dict/{p}.dict")
    }),
    ("its bench stream generator", |p| {
        format!("benches/{p}_stream/mod.rs")
    }),
];

/// How a file names each provider it lists: the provider's own text, anywhere in it.
type Form = fn(Provider) -> String;

/// The files that list providers by hand, what the list is, and its form.
const LISTS: &[(&str, &str, Form)] = &[
    ("README.md", "the providers table", |p| format!("| `{p}` |")),
    (
        "fuzz/Cargo.toml",
        "the fuzz targets (cargo-fuzz builds only these)",
        |p| format!("name = \"{p}_chunked\""),
    ),
];

/// Where a line naming several providers is the registry itself, or not a list.
const NOT_LISTS: &[(&str, &str)] = &[
    ("src/model/provider.rs", "the registry"),
    ("tests/axt/registry.rs", "this test"),
    (
        "tests/axt/view.rs",
        "the browser tests' fixtures, checked against Provider::ALL there",
    ),
    (
        "scripts/store-sessions.py",
        "the stores' generators, checked against Store::ALL (every_store_is_in_every_list)",
    ),
];

#[test]
fn every_provider_is_in_every_list() {
    let mut failures = Vec::new();
    for provider in Provider::ALL {
        for (what, path) in PLACES {
            let path = path(provider);
            if !root().join(&path).exists() {
                failures.push(format!("{path}: missing: {what}, for provider {provider}"));
            }
        }
    }
    for (file, what, text_of) in LISTS {
        let text = read(file);
        for provider in Provider::ALL {
            let needle = text_of(provider);
            if !text.contains(&needle) {
                failures.push(format!(
                    "{file}: no `{needle}` for provider {provider} in {what}"
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} provider(s) missing from a list:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn no_list_of_providers_goes_unchecked() {
    let listed: BTreeSet<&str> = LISTS.iter().map(|(file, ..)| *file).collect();
    let mut unchecked = Vec::new();
    for (file, text) in repository_texts() {
        if listed.contains(file.as_str()) || NOT_LISTS.iter().any(|(f, _)| *f == file) {
            continue;
        }
        for (n, line) in text.lines().enumerate() {
            let named: BTreeSet<Provider> = Provider::ALL
                .into_iter()
                .filter(|p| names_word(line, p.as_str()))
                .collect();
            if named.len() >= 3 {
                unchecked.push(format!(
                    "{file}:{}: names {} providers: derive the list from Provider::ALL (the \
                     corpus folders, the fuzz targets' folder), or add the file to LISTS in \
                     tests/axt/registry.rs: {}",
                    n + 1,
                    named.len(),
                    line.trim()
                ));
            }
        }
    }
    assert!(
        unchecked.is_empty(),
        "lists of providers no test checks:\n{}",
        unchecked.join("\n")
    );
}

/// Whether `line` has `word` with no letter, digit, `-`, `.` or `*` glued to either side
/// (`claude` in `claude_chunked` counts; in `claude-code`, `gcp.gemini`, a model pattern
/// `claude*` or `Claude` it does not).
fn names_word(line: &str, word: &str) -> bool {
    let glued = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || "-.*".contains(c));
    line.match_indices(word).any(|(at, _)| {
        !glued(line[..at].chars().next_back()) && !glued(line[at + word.len()..].chars().next())
    })
}

fn read(file: &str) -> String {
    std::fs::read_to_string(root().join(file)).unwrap_or_else(|error| panic!("{file}: {error}"))
}

/// The code and docs of the repository (not its fixtures, snapshots or build output), by
/// path from the root.
fn repository_texts() -> Vec<(String, String)> {
    const SKIPPED: &[&str] = &[
        ".git",
        "target",
        "corpus",
        "golden",
        "fuzz/corpus",
        "fuzz/artifacts",
        "fuzz/target",
        "fuzz/dict",
        "python/target",
    ];
    const KINDS: &[&str] = &["rs", "py", "pyi", "sh", "toml", "md", "yml", "yaml"];
    let mut texts = Vec::new();
    let mut pending = vec![root().to_owned()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.expect("the repository is readable").path();
            let relative = path.strip_prefix(root()).unwrap().to_string_lossy();
            let relative = relative.replace('\\', "/");
            if SKIPPED.contains(&relative.as_str()) || relative.starts_with('.') && path.is_dir() {
                continue;
            }
            if path.is_dir() {
                pending.push(path);
                continue;
            }
            let kind = path.extension().and_then(|e| e.to_str()).unwrap_or("");
            let make = path.file_name().is_some_and(|n| n == "Makefile");
            if (KINDS.contains(&kind) || make)
                && let Ok(text) = std::fs::read_to_string(&path)
            {
                texts.push((relative, text));
            }
        }
    }
    texts.sort();
    texts.extend(walk(&root().join(".ci")).into_iter().filter_map(|path| {
        let relative = path
            .strip_prefix(root())
            .ok()?
            .to_string_lossy()
            .into_owned();
        Some((relative, std::fs::read_to_string(path).ok()?))
    }));
    texts
}

#[test]
fn a_word_is_a_provider_name_only_on_its_own() {
    assert!(names_word("for provider in claude codex", "claude"));
    assert!(names_word("`claude_chunked`", "claude"));
    assert!(names_word("(claude|codex)", "codex"));
    assert!(!names_word("corpus/import/claude-code", "claude"));
    assert!(!names_word("Claude Code", "claude"));
    assert!(!names_word("openai2", "openai"));
    assert!(!names_word("`gcp.gemini`", "gemini"));
    assert!(!names_word("`claude*` `anthropic`", "claude"));
}

/// Every store `axt import` reads has its corpus (ok and err, described, generated), its
/// snapshots, its words in the README's import row, its place in the import benchmark and
/// in the peer benchmark (its generator and its peers; Claude Code's has a script of its
/// own): a store added to `Store::ALL` fails here until it is in each.
#[test]
fn every_store_is_in_every_list() {
    let readme = read("README.md");
    let bench = read("scripts/import-stores-bench.sh");
    let generator = read("scripts/store-sessions.py");
    let peers = read("scripts/bench-cli.py");
    let mut failures = Vec::new();
    for store in axt::import::Store::ALL {
        let name = store.as_str();
        for path in [
            format!("corpus/import/{name}/ok"),
            format!("corpus/import/{name}/err"),
            format!("corpus/import/{name}/README.md"),
            format!("corpus/import/{name}/make-fixtures.py"),
            format!("golden/import/{name}"),
        ] {
            if !root().join(&path).exists() {
                failures.push(format!("{path}: missing, for store {name}"));
            }
        }
        if !readme.contains(&format!("`{name}`:")) {
            failures.push(format!("README.md: no `{name}`: in the import row"));
        }
        if !bench.contains(name) {
            failures.push(format!(
                "scripts/import-stores-bench.sh: store {name} not benched"
            ));
        }
        let key = format!("\"{name}\": ");
        if name != "claude-code" && !generator.contains(&key) {
            failures.push(format!(
                "scripts/store-sessions.py: store {name} not generated"
            ));
        }
        if name != "claude-code" && !peers.contains(&key) {
            failures.push(format!(
                "scripts/bench-cli.py: store {name} not in the peer benchmark's STORES"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
