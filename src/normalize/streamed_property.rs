//! What the HTTP adapters' "streamed equals whole" property tests share: generated text, a
//! text cut into pieces, an input fed in chunks, and the outcome a stream and a body must
//! agree on; and what their tests of a request's repeated history look at.
//!
//! Test code only. It owns no adapter knowledge: each adapter's `tests.rs` builds its own
//! body and stream from its own vocabulary.

use proptest::prelude::*;
use serde_json::{Value, json};

use super::{Normalized, Options, Output, Provider};

/// Any characters, multi-byte and control ones included.
pub(crate) fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(any::<char>(), 1..40).prop_map(|chars| chars.into_iter().collect())
}

/// `text` cut where `cuts` say (each a fraction of its characters), at least one piece.
pub(crate) fn pieces(text: &str, cuts: &[u8]) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut at: Vec<usize> = cuts
        .iter()
        .map(|c| usize::from(*c) * chars.len() / 256)
        .collect();
    at.push(0);
    at.push(chars.len());
    at.sort_unstable();
    at.dedup();
    at.windows(2)
        .map(|w| chars[w[0]..w[1]].iter().collect())
        .collect()
}

/// `input` normalized by `provider`, pushed `chunk` bytes at a time.
pub(crate) fn in_chunks(provider: Provider, input: &[u8], chunk: usize) -> Normalized {
    let mut normalizer = provider.normalizer(Options::default());
    let mut out = Output::default();
    for piece in input.chunks(chunk) {
        normalizer.push(piece, &mut out);
    }
    normalizer.finish(&mut out);
    Normalized {
        items: out.items,
        meta: normalizer.meta().clone(),
        diagnostics: out.diagnostics,
    }
}

/// What a run gives that a stream and a body must agree on: the blocks with their roles and
/// message ids, the diagnostics' kinds, and the metadata that does not count records.
pub(crate) fn outcome(normalized: &Normalized) -> Value {
    let items: Vec<Value> = (normalized.items.iter())
        .map(|item| json!([item.role.as_str(), item.message_id, item.block]))
        .collect();
    let kinds: Vec<&str> = (normalized.diagnostics.iter())
        .map(|d| d.kind.as_str())
        .collect();
    let meta = &normalized.meta;
    json!({"items": items, "diagnostics": kinds, "model": meta.model, "usage": meta.usage,
        "stop_reason": meta.stop_reason, "status": meta.status, "raw_usage": meta.raw_usage})
}

/// The texts of `input` normalized by `provider`, and its unexpected-shape diagnostics (line,
/// message): what the tests of a request's history (`history.rs`) look at.
pub(crate) fn texts_and_shape_problems(
    provider: Provider,
    input: &str,
) -> (Vec<String>, Vec<(u64, String)>) {
    let normalized = super::normalize_lossy(provider, input.as_bytes(), Options::default());
    let texts = (normalized.items.iter())
        .filter_map(|item| match &item.block.block {
            crate::model::Block::Text { text, .. } => Some(text.clone()),
            _ => None,
        })
        .collect();
    let problems = (normalized.diagnostics.iter())
        .filter(|d| d.kind == super::DiagnosticKind::UnexpectedShape)
        .map(|d| (d.line, d.message.clone()))
        .collect();
    (texts, problems)
}
