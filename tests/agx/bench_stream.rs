//! The benchmark's generated Claude stream is valid input: it normalizes without a single
//! diagnostic and yields every kind of block, so the generator cannot drift from the format.

#[path = "../../benches/claude_stream/mod.rs"]
mod claude_stream;

use agx::model::Block;
use agx::normalize::{Options, Provider, RunStatus, normalize_lossy};

#[test]
fn generated_claude_stream_normalizes_cleanly() {
    let input = claude_stream::claude_stream(2 << 20, 7);
    assert_eq!(
        input,
        claude_stream::claude_stream(2 << 20, 7),
        "deterministic"
    );
    let normalized = normalize_lossy(Provider::Claude, &input, Options::default());
    assert_eq!(normalized.diagnostics, Vec::new());
    assert_eq!(normalized.meta.status, RunStatus::Completed);
    let count = |kind: &str| {
        normalized
            .blocks()
            .filter(|b| b.block.type_name() == kind)
            .count()
    };
    for kind in ["thinking", "text", "tool_use", "command", "tool_result"] {
        assert!(count(kind) > 0, "no {kind} block");
    }
    let uses = normalized
        .blocks()
        .filter(|b| matches!(b.block, Block::ToolUse { .. }))
        .count();
    assert_eq!(uses, count("tool_result"), "every call answered once");
    let lines = input.split(|b| *b == b'\n').filter(|l| !l.is_empty());
    let streamed = lines
        .clone()
        .filter(|l| l.starts_with(b"{\"type\":\"stream_event\""))
        .count();
    let share = streamed as f64 / lines.count() as f64;
    assert!((0.6..0.95).contains(&share), "stream_event share {share}");
}
