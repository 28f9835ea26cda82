#![doc = include_str!("../../../docs/parquet.md")]
//!
//! # The module
//!
//! [`export_dataset`] writes a dataset (`axt export --to parquet`). The files: `schema.rs`
//! (the tables, defined once: row types, columns, docs), `source.rs` (a transcript
//! surveyed: hash, run ids, date, last line), `rows.rs` (a run's events onto rows),
//! `responses.rs` (a run's model responses held until its end, in bounded memory),
//! `write.rs` (rows onto Parquet files), `dataset.rs` (layout, lock, manifest, journal) and
//! `batch.rs` (what one export writes, on every core). This module reads canonical
//! transcripts only, never a provider's dialect, and never changes a transcript.

mod batch;
mod dataset;
mod responses;
mod rows;
pub mod schema;
mod source;
mod write;

pub use batch::{BATCH_BYTES, BATCH_RUNS, DatasetOptions, DatasetReport, export_dataset};
pub use dataset::DatasetError;
pub use schema::{SCHEMA_VERSION, TABLES};
