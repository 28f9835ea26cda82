//! Framings: where one record of provider data ends (vector's `Framer`), for the driver.
//!
//! * [`Lines`] (`lines.rs`): JSON Lines, the output of every agent CLI, and what every other
//!   framing stands on.
//! * [`Http`] (`http.rs`): HTTP bodies, JSON lines, pretty-printed documents (`document.rs`),
//!   SSE streams (`sse.rs`), JSON array streams (`array.rs`) and AWS event streams
//!   (`eventstream.rs`, binary) in any mix.
//!
//! `record.rs` holds what they hand on ([`Frame`], [`Record`]) and the [`Framing`] trait the
//! driver takes. This folder owns splitting and placing records. It must not parse JSON nor
//! know a provider: what a record is, is its adapter's business.

mod array;
mod document;
// Public only for the event-stream fuzz target (its `EventStreamSplitter` seam): not part
// of axt's API.
#[doc(hidden)]
pub mod eventstream;
mod http;
mod lines;
mod record;
// Public only for the SSE fuzz target (its `SseSplitter` seam): not part of axt's API.
#[doc(hidden)]
pub mod sse;

pub(crate) use document::Document;
pub(crate) use http::Http;
pub(crate) use lines::Lines;
pub(crate) use record::{Frame, Framing, Record};
