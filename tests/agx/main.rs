//! agx's integration tests: one binary, one module per area.

mod cli;
mod codex;
mod equivalence;
mod gemini_copilot;
mod golden;
mod model;
mod normalize;
mod record;
