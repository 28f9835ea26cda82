//! The architecture lint: the crate's layering rules, checked on the source text.
//!
//! Every `src/**/*.rs` is read, its comments and string literals blanked out, and every path
//! it uses collected: `use` trees (`use super::{a::B, C}`), inline paths (`crate::x::y`,
//! `super::z`, a child module's `claude::normalizer`) and, in the binary, `axt::...`. Each
//! path is resolved to the file that defines what it names, following the folders'
//! re-exports (`pub use diagnostic::Diagnostic` in `normalize/mod.rs` sends
//! `super::Diagnostic` to `normalize/diagnostic.rs`). Then three rules, each failure named
//! by file, line and rule:
//!
//! 1. **Layers.** A top-level module imports only the modules [`RULES`] allows it (the same
//!    table is in the crate docs, `src/lib.rs`, and a test holds the two equal): so `model`
//!    imports nothing of the crate, `record` and `read` only `model`, and no module imports
//!    one above it. A `super::` that climbs out of its top-level module counts like
//!    `crate::`.
//! 2. **No import cycle between files.** A folder's `mod.rs` re-exporting its files is no
//!    cycle as long as the files import each other directly or through the re-exports
//!    (which lead to the defining file); a file importing something *defined* in its
//!    `mod.rs`, while that `mod.rs` re-exports or uses the file, is one: the `mod.rs` is
//!    then below and above it at once.
//!
//! Test modules (`#[cfg(test)] mod ... { }`) are left out: their `use super::*` is the
//! file's own business.
//! 3. **No source file over [`MAX_LINES`] lines**: a file with chapters is a folder.
//!
//! The checker is plain text processing (no parser dependency); the unit tests below feed it
//! synthetic wrong-way edges to show it fails when it should.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use crate::support::{root, walk};

/// Which top-level modules each top-level module may import. `cli` is the command line, the
/// top layer: no module may import it (so none lists it), and the binary (`main.rs`) counts
/// as part of it; the crate root (`lib.rs`) declares and re-exports, and may name any module.
const RULES: &[(&str, &[&str])] = &[
    ("model", &[]),
    ("batch", &[]),
    ("normalize", &["model"]),
    ("record", &["model"]),
    ("read", &["model"]),
    ("transcribe", &["model", "normalize", "record"]),
    ("workflow", &["model", "normalize", "record", "transcribe"]),
    (
        "capture",
        &["model", "normalize", "record", "transcribe", "workflow"],
    ),
    (
        "import",
        &[
            "batch",
            "model",
            "normalize",
            "record",
            "read",
            "transcribe",
        ],
    ),
    ("export", &["batch", "model", "normalize", "record", "read"]),
    ("usage", &["batch", "import", "model", "normalize", "read"]),
    (
        "cli",
        &[
            "batch",
            "model",
            "normalize",
            "record",
            "read",
            "transcribe",
            "capture",
            "workflow",
            "import",
            "export",
            "usage",
        ],
    ),
];

/// The longest a source file may be.
const MAX_LINES: usize = 1_200;

/// Folders counted as one file by the cycle rule, for now. `normalize/openai/` and
/// `normalize/claude/` define their adapter's `State` in `mod.rs` and write its methods in
/// chapters (`chat.rs`, `responses.rs`, `emit.rs`, ...; `partial.rs`, `messages.rs`, ...),
/// each `impl State` importing the `mod.rs` that imports it: one type split across files, a
/// cycle by construction. Undoing it means giving each chapter its own state; until then
/// the folder is one node of the file graph, and no cycle may run through it from outside.
const ONE_NODE_FOR_NOW: &[&str] = &["src/normalize/openai/", "src/normalize/claude/"];

#[test]
fn the_source_tree_keeps_its_layers() {
    let src = root().join("src");
    let files: Vec<(String, String)> = walk(&src)
        .into_iter()
        .filter(|path| path.extension().is_some_and(|e| e == "rs"))
        .map(|path| {
            let name = path.strip_prefix(root()).unwrap().to_string_lossy();
            let name = name.replace('\\', "/");
            (name, std::fs::read_to_string(&path).unwrap())
        })
        .collect();
    assert!(
        files.len() > 40,
        "found only {} files under src",
        files.len()
    );
    let mut failures = check(&files);
    failures.extend(check_lengths(&files));
    assert!(
        failures.is_empty(),
        "{} layering failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The crate docs (`src/lib.rs`) state the rules this test enforces: their layer table
/// allows each module exactly what [`RULES`] does (`nothing` is none, `any of the above`
/// every module of the rows above), in the same order, and they name every folder
/// [`ONE_NODE_FOR_NOW`] counts as one file.
#[test]
fn the_crate_docs_state_the_rules_this_test_enforces() {
    let docs = std::fs::read_to_string(root().join("src/lib.rs")).unwrap();
    let failures = compare_docs(&docs);
    assert!(
        failures.is_empty(),
        "src/lib.rs and tests/axt/layering.rs disagree:\n{}",
        failures.join("\n")
    );
}

/// What the crate docs say that `RULES` and `ONE_NODE_FOR_NOW` do not.
fn compare_docs(docs: &str) -> Vec<String> {
    let mut table: Vec<(String, Vec<String>)> = Vec::new();
    for line in docs.lines() {
        let Some(row) = line.strip_prefix("//! | `") else {
            continue;
        };
        let Some((module, rest)) = row.split_once('`') else {
            continue;
        };
        let allowed = rest.rsplit('|').nth(1).unwrap_or("").trim();
        let allowed = match allowed {
            "nothing" => Vec::new(),
            "any of the above" => table.iter().map(|(m, _)| m.clone()).collect(),
            list => list
                .split(',')
                .map(|name| name.trim().trim_matches('`').to_owned())
                .collect(),
        };
        table.push((module.to_owned(), allowed));
    }
    let mut failures = Vec::new();
    let rules: Vec<(String, Vec<String>)> = RULES
        .iter()
        .map(|(module, allowed)| {
            let allowed = allowed.iter().map(|m| (*m).to_owned()).collect();
            ((*module).to_owned(), allowed)
        })
        .collect();
    let docs_order: Vec<&String> = table.iter().map(|(m, _)| m).collect();
    let rules_order: Vec<&String> = rules.iter().map(|(m, _)| m).collect();
    if docs_order != rules_order {
        failures.push(format!(
            "the table's modules are {docs_order:?}, RULES' are {rules_order:?}"
        ));
    }
    for (module, allowed) in &rules {
        let Some((_, stated)) = table.iter().find(|(m, _)| m == module) else {
            continue;
        };
        let (mut stated, mut allowed) = (stated.clone(), allowed.clone());
        stated.sort();
        allowed.sort();
        if stated != allowed {
            failures.push(format!(
                "`{module}` may import {allowed:?} by RULES, {stated:?} by the table"
            ));
        }
    }
    for folder in ONE_NODE_FOR_NOW {
        let named = folder.trim_start_matches("src/");
        if !docs.contains(&format!("`{named}`")) {
            failures.push(format!(
                "{folder} counts as one file here, and the crate docs do not say so"
            ));
        }
    }
    failures
}

#[test]
fn a_table_that_differs_from_the_rules_is_named() {
    let docs = "//! | module | may import |\n//! |---|---|\n//! | `model` | nothing |\n\
        //! | `normalize` | `model`, `read` |\n";
    let failures = compare_docs(docs);
    assert!(
        failures.contains(
            &"`normalize` may import [\"model\"] by RULES, [\"model\", \"read\"] by the table"
                .to_owned()
        ),
        "{failures:#?}"
    );
    assert!(
        failures
            .iter()
            .any(|f| f.starts_with("the table's modules are"))
    );
    assert!(
        failures
            .iter()
            .any(|f| f.contains("src/normalize/openai/ counts as one file"))
    );
}

/// Every file's line count against [`MAX_LINES`].
fn check_lengths(files: &[(String, String)]) -> Vec<String> {
    let mut failures = Vec::new();
    for (name, text) in files {
        let lines = text.lines().count();
        if lines > MAX_LINES {
            failures.push(format!(
                "{name}: {lines} lines: rule: no source file over {MAX_LINES} lines (a file \
                 with chapters is a folder)"
            ));
        }
    }
    failures
}

/// Which crate a file belongs to: the library, or the binary (`main.rs` and its modules).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Crate {
    Lib,
    Bin,
}

/// A module: its crate and its path from the crate root.
type Module = (Crate, Vec<String>);

/// One source file, read.
struct File {
    name: String,
    module: Module,
    /// Names it re-exports (`pub use a::B;` and `pub(crate) use`): name -> absolute path.
    exports: BTreeMap<String, Module>,
    /// Paths it uses (re-exports included), absolute, with the line they are on.
    uses: Vec<Use>,
}

struct Use {
    line: usize,
    target: Module,
}

/// Checks the layering and cycle rules on `(path, text)` pairs, paths like
/// `src/normalize/mod.rs`. Returns one message per failure.
fn check(sources: &[(String, String)]) -> Vec<String> {
    let bin_modules: BTreeSet<String> = sources
        .iter()
        .find(|(name, _)| name == "src/main.rs")
        .map(|(_, text)| declared_modules(&strip(text)))
        .unwrap_or_default();
    let mut files: Vec<File> = sources
        .iter()
        .map(|(name, text)| read_file(name, text, &bin_modules))
        .collect();
    files.sort_by(|a, b| a.name.cmp(&b.name));
    let by_module: BTreeMap<&Module, usize> = files
        .iter()
        .enumerate()
        .map(|(at, file)| (&file.module, at))
        .collect();

    let mut failures = Vec::new();
    let mut edges: BTreeMap<usize, BTreeMap<usize, usize>> = BTreeMap::new();
    for (at, file) in files.iter().enumerate() {
        let from = top_level(&file.module);
        for used in &file.uses {
            let Some(target) = resolve(&files, &by_module, &used.target, 0) else {
                continue;
            };
            let to = top_level(&files[target].module);
            if let Some(rule) = wrong_way(&from, &to) {
                failures.push(format!(
                    "{}:{}: imports {} ({}): rule: {rule}",
                    file.name,
                    used.line,
                    display(&used.target),
                    files[target].name
                ));
            }
            let (from_node, to_node) = (node(&files, at), node(&files, target));
            if from_node != to_node {
                edges
                    .entry(from_node)
                    .or_default()
                    .entry(to_node)
                    .or_insert(used.line);
            }
        }
    }
    if let Some(cycle) = find_cycle(files.len(), &edges) {
        let mut message = String::from("import cycle between files: ");
        for (i, at) in cycle.iter().enumerate() {
            let next = cycle[(i + 1) % cycle.len()];
            let line = edges[at][&next];
            let _ = write!(message, "{}:{line} -> ", files[*at].name);
        }
        message.push_str(&files[cycle[0]].name);
        message.push_str(": rule: no import cycle between files");
        failures.push(message);
    }
    failures
}

/// The file that stands for `at` in the file graph: the first file of its folder when the
/// folder is in [`ONE_NODE_FOR_NOW`], else itself.
fn node(files: &[File], at: usize) -> usize {
    let name = &files[at].name;
    match ONE_NODE_FOR_NOW
        .iter()
        .find(|folder| name.starts_with(*folder))
    {
        Some(folder) => files
            .iter()
            .position(|file| file.name.starts_with(folder))
            .unwrap_or(at),
        None => at,
    }
}

/// The rule an import from top-level module `from` into `to` breaks, if any.
fn wrong_way(from: &str, to: &str) -> Option<String> {
    if from == to || from.is_empty() {
        return None;
    }
    let allowed = RULES.iter().find(|(module, _)| *module == from);
    match allowed {
        Some((_, allowed)) if allowed.contains(&to) => None,
        Some((_, [])) => Some(format!("`{from}` imports nothing of the crate")),
        Some((_, allowed)) => Some(format!("`{from}` imports only {}", allowed.join(", "))),
        None => Some(format!(
            "`{from}` has no layering rule: add it to RULES and to the table in src/lib.rs"
        )),
    }
}

/// The top-level module a module sits in: `cli` for the whole binary, `""` for the
/// library's root.
fn top_level((krate, path): &Module) -> String {
    match krate {
        Crate::Bin => "cli".to_owned(),
        Crate::Lib => path.first().cloned().unwrap_or_default(),
    }
}

fn display((krate, path): &Module) -> String {
    let root = match krate {
        Crate::Lib => "crate",
        Crate::Bin => "bin",
    };
    std::iter::once(root)
        .chain(path.iter().map(String::as_str))
        .collect::<Vec<_>>()
        .join("::")
}

/// The file that defines what `target` names: the deepest module of its path that is a
/// file, then through that file's re-export of the next name, if it has one.
fn resolve(
    files: &[File],
    by_module: &BTreeMap<&Module, usize>,
    target: &Module,
    depth: usize,
) -> Option<usize> {
    let (krate, path) = target;
    let (at, len) = (0..=path.len()).rev().find_map(|len| {
        let module = (*krate, path[..len].to_vec());
        by_module.get(&module).map(|at| (*at, len))
    })?;
    if depth < 8
        && let Some(name) = path.get(len)
        && let Some((krate, exported)) = files[at].exports.get(name)
    {
        let mut through = exported.clone();
        through.extend(path[len + 1..].iter().cloned());
        if let Some(found) = resolve(files, by_module, &(*krate, through), depth + 1) {
            return Some(found);
        }
    }
    Some(at)
}

/// A cycle in the file graph, as the files in order, if there is one.
fn find_cycle(count: usize, edges: &BTreeMap<usize, BTreeMap<usize, usize>>) -> Option<Vec<usize>> {
    // Iterative depth-first search: 0 unvisited, 1 on the stack, 2 done.
    let mut state = vec![0u8; count];
    for start in 0..count {
        if state[start] != 0 {
            continue;
        }
        let mut stack: Vec<(usize, Vec<usize>)> = Vec::new();
        let next = |at: usize| -> Vec<usize> {
            edges
                .get(&at)
                .map(|to| to.keys().copied().collect())
                .unwrap_or_default()
        };
        state[start] = 1;
        stack.push((start, next(start)));
        while let Some((at, pending)) = stack.last_mut() {
            let at = *at;
            match pending.pop() {
                Some(to) if state[to] == 1 => {
                    let from = stack.iter().position(|(file, _)| *file == to).unwrap();
                    return Some(stack[from..].iter().map(|(file, _)| *file).collect());
                }
                Some(to) if state[to] == 0 => {
                    state[to] = 1;
                    stack.push((to, next(to)));
                }
                Some(_) => {}
                None => {
                    state[at] = 2;
                    stack.pop();
                }
            }
        }
    }
    None
}

/// Reads one file: its module, children, re-exports and used paths.
fn read_file(name: &str, text: &str, bin_modules: &BTreeSet<String>) -> File {
    let module = module_of(name, bin_modules);
    let mut code = strip_test_modules(&strip(text));
    let children = declared_modules(&code);
    let mut exports = BTreeMap::new();
    let mut uses = Vec::new();
    for (start, end, reexport) in use_statements(&code) {
        let line = code[..start].matches('\n').count() + 1;
        let tree = &code[start..end];
        let tree = tree[tree.find("use").unwrap() + 3..].trim();
        for (path, alias) in expand(tree) {
            let Some(target) = absolute(&module, &children, &path) else {
                continue;
            };
            if reexport && alias != "*" {
                exports.insert(alias, target.clone());
            }
            uses.push(Use { line, target });
        }
    }
    // Blank the use statements out, then look for inline paths in what is left.
    for (start, end, _) in use_statements(&code) {
        let blank: String = code[start..end]
            .chars()
            .map(|c| if c == '\n' { '\n' } else { ' ' })
            .collect();
        code.replace_range(start..end, &blank);
    }
    for (start, path) in inline_paths(&code) {
        let line = code[..start].matches('\n').count() + 1;
        if let Some(target) = absolute(&module, &children, &path) {
            uses.push(Use { line, target });
        }
    }
    File {
        name: name.to_owned(),
        module,
        exports,
        uses,
    }
}

/// The module a file is: `src/a/b.rs` and `src/a/b/mod.rs` are `a::b`; the binary is
/// `main.rs` and the modules it declares.
fn module_of(name: &str, bin_modules: &BTreeSet<String>) -> Module {
    let path = name.strip_prefix("src/").unwrap_or(name);
    let path = path.strip_suffix(".rs").unwrap_or(path);
    let mut segments: Vec<String> = path.split('/').map(str::to_owned).collect();
    if matches!(
        segments.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        segments.pop();
    }
    let bin = name == "src/main.rs" || segments.first().is_some_and(|s| bin_modules.contains(s));
    (if bin { Crate::Bin } else { Crate::Lib }, segments)
}

/// A path as written, made absolute from `module`; `None` for another crate's path (std,
/// serde, ...).
fn absolute(module: &Module, children: &BTreeSet<String>, path: &[String]) -> Option<Module> {
    let (krate, here) = module;
    let first = path.first()?;
    let (krate, mut base, rest) = match first.as_str() {
        "crate" => (*krate, Vec::new(), &path[1..]),
        "axt" if *krate == Crate::Bin => (Crate::Lib, Vec::new(), &path[1..]),
        "self" => (*krate, here.clone(), &path[1..]),
        "super" => {
            let mut base = here.clone();
            let mut rest = path;
            while rest.first().is_some_and(|s| s == "super") {
                base.pop();
                rest = &rest[1..];
            }
            (*krate, base, rest)
        }
        child if children.contains(child) => (*krate, here.clone(), path),
        _ => return None,
    };
    base.extend(rest.iter().filter(|s| *s != "self").cloned());
    Some((krate, base))
}

/// `mod x;` and `mod x {` declarations.
fn declared_modules(code: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for (at, _) in code.match_indices("mod ") {
        if at > 0 && is_ident(code.as_bytes()[at - 1]) {
            continue;
        }
        let rest = &code[at + 4..];
        let name: String = rest
            .trim_start()
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if !name.is_empty() {
            found.insert(name);
        }
    }
    found
}

/// The byte ranges of `use` statements (from `use` or its visibility to the `;`), and
/// whether each is a re-export (`pub` or `pub(...)`).
fn use_statements(code: &str) -> Vec<(usize, usize, bool)> {
    let bytes = code.as_bytes();
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(offset) = code[from..].find("use") {
        let at = from + offset;
        from = at + 3;
        let before = at.checked_sub(1).map(|i| bytes[i]);
        let after = bytes.get(at + 3).copied();
        if before.is_some_and(is_ident) || !after.is_some_and(|b| b.is_ascii_whitespace()) {
            continue;
        }
        let Some(end) = code[at..].find(';').map(|e| at + e + 1) else {
            continue;
        };
        // A visibility just before it makes it a re-export.
        let head = code[..at].trim_end();
        let (start, reexport) = match head.strip_suffix(')') {
            Some(open) if open.rfind('(').is_some_and(|p| open[..p].ends_with("pub")) => {
                (open.rfind('(').unwrap() - 3, true)
            }
            _ if head.ends_with("pub")
                && !head[..head.len() - 3].ends_with(|c: char| c.is_alphanumeric() || c == '_') =>
            {
                (head.len() - 3, true)
            }
            _ => (at, false),
        };
        found.push((start, end, reexport));
        from = end;
    }
    found
}

/// Expands a use tree (`a::{b, c::{d as e, self}}`) into paths and the name each binds.
fn expand(tree: &str) -> Vec<(Vec<String>, String)> {
    // One space at most between words (`a as b`), none around punctuation.
    let words: Vec<&str> = tree.trim_end_matches(';').split_whitespace().collect();
    let mut tree = words.join(" ");
    for punctuation in ["::", "{", "}", ","] {
        tree = tree
            .replace(&format!(" {punctuation}"), punctuation)
            .replace(&format!("{punctuation} "), punctuation);
    }
    let mut out = Vec::new();
    expand_into(&tree, &mut Vec::new(), &mut out);
    out
}

fn expand_into(tree: &str, prefix: &mut Vec<String>, out: &mut Vec<(Vec<String>, String)>) {
    for item in split_top(tree) {
        let item = item.trim();
        if item.is_empty() {
            continue;
        }
        let depth = prefix.len();
        let (head, group) = match item.find('{') {
            Some(open) => (&item[..open], Some(&item[open + 1..item.len() - 1])),
            None => (item, None),
        };
        let (head, alias) = match head.split_once(" as ") {
            Some((head, alias)) => (head, Some(alias.trim().to_owned())),
            None => (head, None),
        };
        prefix.extend(
            head.split("::")
                .filter(|s| !s.is_empty())
                .map(str::to_owned),
        );
        match group {
            Some(group) => expand_into(group, prefix, out),
            None => {
                let mut path = prefix.clone();
                if path.last().is_some_and(|s| s == "self") {
                    path.pop();
                }
                let name = alias.unwrap_or_else(|| path.last().cloned().unwrap_or_default());
                out.push((path, name));
            }
        }
        prefix.truncate(depth);
    }
}

/// Splits on the commas that are not inside braces.
fn split_top(tree: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (at, c) in tree.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&tree[start..at]);
                start = at + 1;
            }
            _ => {}
        }
    }
    parts.push(&tree[start..]);
    parts
}

/// Paths written in code: an identifier followed by `::`, and the segments after it.
fn inline_paths(code: &str) -> Vec<(usize, Vec<String>)> {
    let bytes = code.as_bytes();
    let mut found = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let starts = is_ident(bytes[at])
            && !bytes[at].is_ascii_digit()
            && (at == 0 || !(is_ident(bytes[at - 1]) || bytes[at - 1] == b':'));
        if !starts {
            at += 1;
            continue;
        }
        let start = at;
        let mut segments = Vec::new();
        loop {
            let begin = at;
            while at < bytes.len() && is_ident(bytes[at]) {
                at += 1;
            }
            segments.push(code[begin..at].to_owned());
            let more = code[at..].starts_with("::")
                && bytes
                    .get(at + 2)
                    .is_some_and(|b| is_ident(*b) && !b.is_ascii_digit());
            if !more {
                break;
            }
            at += 2;
        }
        if segments.len() > 1 {
            found.push((start, segments));
        }
    }
    found
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The code with comments, string and character literals blanked out (newlines kept, so
/// lines still count).
fn strip(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(chars[i]));
                    i += 1;
                }
            }
        } else if c == 'r'
            && (next == Some('"') || next == Some('#'))
            && (i == 0
                || !is_ident(chars[i - 1] as u8)
                || (chars[i - 1] == 'b' && (i < 2 || !is_ident(chars[i - 2] as u8))))
        {
            // A raw string: r"..." or r#"..."#.
            let mut j = i + 1;
            let mut hashes = 0;
            while chars.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if chars.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            let close: String = std::iter::once('"')
                .chain(std::iter::repeat_n('#', hashes))
                .collect();
            let close: Vec<char> = close.chars().collect();
            let mut k = j + 1;
            while k < chars.len() && chars[k..].iter().take(close.len()).ne(close.iter()) {
                k += 1;
            }
            let end = (k + close.len()).min(chars.len());
            out.extend(chars[i..end].iter().map(|c| blank(*c)));
            i = end;
        } else if c == '"' {
            out.push(' ');
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    out.push(' ');
                    i += 1;
                }
                if i < chars.len() {
                    out.push(blank(chars[i]));
                    i += 1;
                }
            }
            out.push(' ');
            i += 1;
        } else if c == '\'' && char_literal_len(&chars[i..]).is_some() {
            let len = char_literal_len(&chars[i..]).unwrap();
            out.extend(std::iter::repeat_n(' ', len));
            i += len;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// The code with `#[cfg(test)] mod name { ... }` blanked out.
fn strip_test_modules(code: &str) -> String {
    let mut code = code.to_owned();
    while let Some(at) = code.find("#[cfg(test)]") {
        let after = at + "#[cfg(test)]".len();
        let is_module = code[after..].trim_start().starts_with("mod ");
        let open = code[after..].find('{').map(|o| after + o);
        let end = match (is_module, open) {
            (true, Some(open)) => {
                let mut depth = 0;
                let mut end = code.len();
                for (i, c) in code[open..].char_indices() {
                    match c {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                end = open + i + 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                end
            }
            _ => after,
        };
        let blank: String = code[at..end]
            .chars()
            .map(|c| if c == '\n' { '\n' } else { ' ' })
            .collect();
        code.replace_range(at..end, &blank);
    }
    code
}

/// The length of a character literal at the start of `chars` (`'a'`, `'\n'`, `'\u{1F600}'`),
/// `None` for a lifetime.
fn char_literal_len(chars: &[char]) -> Option<usize> {
    match chars.get(1)? {
        '\\' => {
            let close = chars.iter().skip(2).position(|c| *c == '\'')?;
            Some(close + 3)
        }
        _ if chars.get(2) == Some(&'\'') => Some(3),
        _ => None,
    }
}

#[cfg(test)]
mod checker {
    use super::*;

    fn files(sources: &[(&str, &str)]) -> Vec<(String, String)> {
        sources
            .iter()
            .map(|(name, text)| (name.to_string(), text.to_string()))
            .collect()
    }

    #[test]
    fn a_wrong_way_use_fails_with_file_line_and_rule() {
        let failures = check(&files(&[
            ("src/lib.rs", "pub mod model;\npub mod normalize;\n"),
            (
                "src/model/mod.rs",
                "//! Docs naming crate::normalize are fine.\n\nuse crate::normalize::{Item, Provider};\n",
            ),
            (
                "src/normalize/mod.rs",
                "pub struct Item;\npub struct Provider;\n",
            ),
        ]));
        assert_eq!(
            failures,
            [
                "src/model/mod.rs:3: imports crate::normalize::Item (src/normalize/mod.rs): \
                 rule: `model` imports nothing of the crate",
                "src/model/mod.rs:3: imports crate::normalize::Provider (src/normalize/mod.rs): \
                 rule: `model` imports nothing of the crate",
            ]
        );
    }

    #[test]
    fn inline_paths_and_super_climbing_out_count_too() {
        let failures = check(&files(&[
            ("src/lib.rs", "pub mod normalize;\npub mod record;\n"),
            ("src/normalize/mod.rs", "pub struct Diagnostic;\n"),
            ("src/record/mod.rs", "mod sink;\n"),
            (
                "src/record/sink.rs",
                "use super::super::normalize::Diagnostic;\nfn f(_: crate::normalize::Diagnostic) {}\nconst S: &str = \"crate::normalize::X\";\n",
            ),
        ]));
        assert_eq!(failures.len(), 2, "{failures:#?}");
        assert!(failures[0].starts_with("src/record/sink.rs:1: "));
        assert!(failures[1].starts_with("src/record/sink.rs:2: "));
        assert!(failures[1].ends_with("rule: `record` imports only model"));
    }

    #[test]
    fn a_cycle_between_files_fails_and_a_roof_re_export_does_not() {
        let roof = "mod a;\nmod b;\npub use a::A;\npub use b::B;\n";
        let failures = check(&files(&[
            ("src/lib.rs", "pub mod read;\n"),
            ("src/read/mod.rs", roof),
            ("src/read/a.rs", "use super::B;\npub struct A;\n"),
            (
                "src/read/b.rs",
                "pub struct B;\n#[cfg(test)]\nmod tests {\n    use super::super::*;\n}\n",
            ),
        ]));
        assert_eq!(failures, Vec::<String>::new());
        // A file using what its `mod.rs` defines, while that `mod.rs` re-exports it.
        let failures = check(&files(&[
            ("src/lib.rs", "pub mod read;\n"),
            (
                "src/read/mod.rs",
                "mod a;\npub use a::A;\npub struct Roof;\n",
            ),
            ("src/read/a.rs", "use super::Roof;\npub struct A;\n"),
        ]));
        assert_eq!(
            failures,
            [
                "import cycle between files: src/read/a.rs:1 -> src/read/mod.rs:2 -> \
              src/read/a.rs: rule: no import cycle between files"
            ]
        );
        let failures = check(&files(&[
            ("src/lib.rs", "pub mod read;\n"),
            ("src/read/mod.rs", roof),
            ("src/read/a.rs", "use super::B;\npub struct A;\n"),
            ("src/read/b.rs", "pub struct B;\nfn f(_: super::a::A) {}\n"),
        ]));
        assert_eq!(
            failures,
            [
                "import cycle between files: src/read/a.rs:1 -> src/read/b.rs:2 -> \
              src/read/a.rs: rule: no import cycle between files"
            ]
        );
    }

    #[test]
    fn the_binary_reaches_the_library_through_its_name() {
        let failures = check(&files(&[
            ("src/lib.rs", "pub mod model;\n"),
            ("src/model/mod.rs", "pub struct Event;\n"),
            ("src/main.rs", "mod cli;\n"),
            (
                "src/cli/mod.rs",
                "use axt::model::Event;\nuse crate::cli::x;\n",
            ),
        ]));
        assert_eq!(failures, Vec::<String>::new());
        let failures = check(&files(&[
            ("src/lib.rs", "pub mod model;\npub mod capture;\n"),
            ("src/model/mod.rs", "pub struct Event;\n"),
            ("src/capture.rs", "use crate::model::Event;\n"),
            ("src/rogue.rs", "use crate::capture;\n"),
        ]));
        assert_eq!(
            failures,
            [
                "src/rogue.rs:1: imports crate::capture (src/capture.rs): rule: `rogue` has no \
              layering rule: add it to RULES and to the table in src/lib.rs"
            ]
        );
    }

    /// The command line is compiled into the library (so the Python package can run it),
    /// and stays the top layer: a library module that imports it fails.
    #[test]
    fn nothing_in_the_library_imports_the_command_line() {
        let failures = check(&files(&[
            (
                "src/lib.rs",
                "pub mod model;
pub mod export;
pub mod cli;
",
            ),
            (
                "src/main.rs",
                "fn main() { axt::cli::run(std::env::args_os()); }
",
            ),
            (
                "src/model/mod.rs",
                "pub struct Event;
",
            ),
            (
                "src/cli/mod.rs",
                "use crate::model::Event;
pub fn run() {}
",
            ),
            (
                "src/export/mod.rs",
                "use crate::cli::run;
",
            ),
        ]));
        assert_eq!(
            failures,
            [
                "src/export/mod.rs:1: imports crate::cli::run (src/cli/mod.rs): rule: `export` \
                 imports only batch, model, normalize, record, read"
            ]
        );
    }

    #[test]
    fn the_length_rule() {
        let long = "\n".repeat(MAX_LINES + 1);
        let failures = check_lengths(&files(&[
            ("src/big.rs", &long),
            ("src/small.rs", "short\n"),
        ]));
        assert_eq!(failures.len(), 1, "{failures:#?}");
        assert!(failures[0].starts_with("src/big.rs: 1201 lines: rule: "));
    }
}
