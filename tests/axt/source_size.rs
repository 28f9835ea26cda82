//! No source file over 1,200 lines: a dialect per file is fine, a file with chapters is a
//! folder (`normalize/claude/`, `normalize/openai/`, `import/claude_code/`).

use crate::support::{root, walk};

const MAX_LINES: usize = 1_200;

#[test]
fn no_source_file_is_over_the_limit() {
    let src = root().join("src");
    let over: Vec<String> = walk(&src)
        .into_iter()
        .filter(|path| path.extension().is_some_and(|ext| ext == "rs"))
        .filter_map(|path| {
            let lines = std::fs::read_to_string(&path).unwrap().lines().count();
            (lines > MAX_LINES).then(|| format!("{}: {lines} lines", path.display()))
        })
        .collect();
    assert!(
        over.is_empty(),
        "over {MAX_LINES} lines; split along the file's seams:\n{}",
        over.join("\n")
    );
}
