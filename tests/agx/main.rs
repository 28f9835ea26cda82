//! agx's integration tests: one binary, one module per area.

mod cli;
mod golden;
mod model;
mod normalize;
mod record;
