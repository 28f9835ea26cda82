//! agx's integration tests: one binary, one module per area.

mod cli;
mod model;
mod record;
