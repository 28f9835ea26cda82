//! agx's integration tests: one binary, one module per area.

mod cli;
mod gemini_copilot;
mod golden;
mod model;
mod normalize;
