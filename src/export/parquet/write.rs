//! Rows in, Parquet files out: one [`TableWriter`] per table of a batch, building Arrow
//! columns from the schema's cells and handing them to arrow-rs's Parquet writer; and
//! [`rewrite`], which copies a file without the rows of some runs.
//!
//! This file owns the physical layout of a file: Arrow types for the schema's column types,
//! zstd compression, row groups of at most [`ROW_GROUP_ROWS`] rows or
//! [`ROW_GROUP_BYTES`], the file's key-value metadata. It must not decide what a row holds
//! (`rows.rs`) or where a file goes (`dataset.rs`).

use std::fs::File;
use std::io;
use std::path::Path;
use std::sync::Arc;

use arrow_array::builder::{
    ArrayBuilder, BooleanBuilder, Float64Builder, Int64Builder, StringBuilder,
    TimestampMicrosecondBuilder,
};
use arrow_array::{Array, ArrayRef, BooleanArray, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema, SchemaRef, TimeUnit};
use parquet::arrow::ArrowWriter;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::metadata::KeyValue;
use parquet::file::properties::WriterProperties;

use super::schema::{Cell, ColumnType, SCHEMA_VERSION, Table};

/// Most rows in a row group: what DuckDB and Spark scan in parallel, one row group a task.
pub(crate) const ROW_GROUP_ROWS: usize = 128 * 1024;
/// Most bytes (encoded) in a row group, for tables of long rows (`content`): keeps a
/// writer's memory and a reader's unit of work bounded.
pub(crate) const ROW_GROUP_BYTES: usize = 64 << 20;
/// Rows built into Arrow columns before they are handed to the Parquet writer.
const BATCH_ROWS: usize = 8 * 1024;
/// Bytes of text built into Arrow columns before they are handed to the Parquet writer,
/// whatever the rows: a table of few long rows (a batch's `tool_calls`, 6,880 rows and
/// 16 MiB of tool errors in the batch bench) is then encoded as its rows come, not all
/// at once when its file is finished, after the last run is mapped, while every worker
/// is idle. Where the batches are cut does not depend on the number of workers. (Measured:
/// the tail 24 -> 9 ms on tmpfs, but the 2-core/1-core ratio within noise, 1.72x both, on
/// a loaded machine: the encoding now shares the cores with the workers instead.)
const BATCH_TEXT_BYTES: usize = 1 << 20;

/// The Arrow schema of a table.
pub(crate) fn arrow_schema(table: &Table) -> SchemaRef {
    let fields: Vec<Field> = table
        .columns
        .iter()
        .map(|column| Field::new(column.name, data_type(column.kind), column.nullable))
        .collect();
    Arc::new(Schema::new(fields))
}

fn data_type(kind: ColumnType) -> DataType {
    match kind {
        ColumnType::Text => DataType::Utf8,
        ColumnType::Int => DataType::Int64,
        ColumnType::Float => DataType::Float64,
        ColumnType::Bool => DataType::Boolean,
        ColumnType::Time => DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
    }
}

fn properties(table: &Table) -> WriterProperties {
    let level = ZstdLevel::try_new(3).expect("3 is a zstd level");
    WriterProperties::builder()
        .set_compression(Compression::ZSTD(level))
        .set_max_row_group_row_count(Some(ROW_GROUP_ROWS))
        .set_max_row_group_bytes(Some(ROW_GROUP_BYTES))
        // Fixed, so that one dataset's bytes do not depend on the build that wrote them.
        .set_created_by(format!("axt {}", env!("CARGO_PKG_VERSION")))
        .set_key_value_metadata(Some(vec![
            KeyValue::new("axt.schema_version".to_owned(), SCHEMA_VERSION.to_owned()),
            KeyValue::new("axt.table".to_owned(), table.name.to_owned()),
        ]))
        .build()
}

fn parquet_error(error: parquet::errors::ParquetError) -> io::Error {
    match error {
        parquet::errors::ParquetError::External(inner) => match inner.downcast::<io::Error>() {
            Ok(error) => *error,
            Err(other) => io::Error::other(other),
        },
        other => io::Error::other(other),
    }
}

fn arrow_error(error: arrow_schema::ArrowError) -> io::Error {
    match error {
        arrow_schema::ArrowError::IoError(_, error) => error,
        other => io::Error::other(other),
    }
}

/// The rows of one table of a batch, written to one file as they come.
pub(crate) struct TableWriter {
    table: &'static Table,
    schema: SchemaRef,
    builders: Vec<Box<dyn ArrayBuilder>>,
    buffered: usize,
    /// Bytes of text in `builders`.
    buffered_text: usize,
    rows: u64,
    writer: Option<ArrowWriter<File>>,
    file: std::path::PathBuf,
}

impl TableWriter {
    /// A writer of `table` into `file`, created (mode 0600, never through a link) at its
    /// first row: a table with no row gets no file.
    pub(crate) fn new(table: &'static Table, file: std::path::PathBuf) -> Self {
        let schema = arrow_schema(table);
        TableWriter {
            table,
            builders: builders(table),
            schema,
            buffered: 0,
            buffered_text: 0,
            rows: 0,
            writer: None,
            file,
        }
    }

    /// Adds a row (its cells in column order).
    pub(crate) fn push(&mut self, cells: Vec<Cell>) -> io::Result<()> {
        debug_assert_eq!(cells.len(), self.builders.len(), "{}", self.table.name);
        for (builder, cell) in self.builders.iter_mut().zip(cells) {
            if let Cell::Text(Some(text)) = &cell {
                self.buffered_text += text.len();
            }
            append(builder.as_mut(), cell);
        }
        self.buffered += 1;
        self.rows += 1;
        if self.buffered >= BATCH_ROWS || self.buffered_text >= BATCH_TEXT_BYTES {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.buffered == 0 {
            return Ok(());
        }
        let columns: Vec<ArrayRef> = self.builders.iter_mut().map(|b| b.finish()).collect();
        let batch = RecordBatch::try_new(self.schema.clone(), columns).map_err(arrow_error)?;
        self.buffered = 0;
        self.buffered_text = 0;
        self.write(&batch)
    }

    fn write(&mut self, batch: &RecordBatch) -> io::Result<()> {
        if self.writer.is_none() {
            let file = crate::record::create_private(&self.file)?;
            let writer =
                ArrowWriter::try_new(file, self.schema.clone(), Some(properties(self.table)))
                    .map_err(parquet_error)?;
            self.writer = Some(writer);
        }
        let writer = self.writer.as_mut().expect("created above");
        writer.write(batch).map_err(parquet_error)
    }

    /// Finishes the file, synced; returns its rows (0: no file was written).
    pub(crate) fn finish(self) -> io::Result<u64> {
        let (rows, file) = self.close()?;
        if let Some(file) = file {
            file.sync_all()?;
        }
        Ok(rows)
    }

    /// Finishes the file, not yet synced: its rows, and the file to sync (`None`: no file
    /// was written).
    pub(crate) fn close(mut self) -> io::Result<(u64, Option<File>)> {
        self.flush()?;
        let file = match self.writer.take() {
            Some(writer) => Some(writer.into_inner().map_err(parquet_error)?),
            None => None,
        };
        Ok((self.rows, file))
    }
}

fn builders(table: &Table) -> Vec<Box<dyn ArrayBuilder>> {
    table
        .columns
        .iter()
        .map(|column| -> Box<dyn ArrayBuilder> {
            match column.kind {
                ColumnType::Text => Box::new(StringBuilder::new()),
                ColumnType::Int => Box::new(Int64Builder::new()),
                ColumnType::Float => Box::new(Float64Builder::new()),
                ColumnType::Bool => Box::new(BooleanBuilder::new()),
                ColumnType::Time => {
                    Box::new(TimestampMicrosecondBuilder::new().with_timezone("UTC"))
                }
            }
        })
        .collect()
}

/// Appends a cell to the builder of its column; the schema made both, so they agree.
fn append(builder: &mut dyn ArrayBuilder, cell: Cell) {
    let any = builder.as_any_mut();
    match cell {
        Cell::Text(value) => typed::<StringBuilder>(any).append_option(value),
        Cell::Int(value) => typed::<Int64Builder>(any).append_option(value),
        Cell::Float(value) => typed::<Float64Builder>(any).append_option(value),
        Cell::Bool(value) => typed::<BooleanBuilder>(any).append_option(value),
        Cell::Time(value) => typed::<TimestampMicrosecondBuilder>(any).append_option(value),
    }
}

fn typed<B: 'static>(any: &mut dyn std::any::Any) -> &mut B {
    any.downcast_mut::<B>()
        .expect("a row's cells are in its table's column order")
}

/// Copies `from` to `to` without the rows whose `run_id` is in `drop`; returns the rows
/// kept (0: `to` was not written). The rows are read a batch at a time, so memory stays
/// that of one row group whatever the file's size.
pub(crate) fn rewrite(
    table: &'static Table,
    from: &Path,
    to: &Path,
    drop: &std::collections::HashSet<String>,
) -> io::Result<u64> {
    let file = File::open(from)?;
    let reader = ParquetRecordBatchReaderBuilder::try_new(file)
        .map_err(parquet_error)?
        .with_batch_size(BATCH_ROWS)
        .build()
        .map_err(parquet_error)?;
    let mut out = TableWriter::new(table, to.to_owned());
    let run_column = table
        .columns
        .iter()
        .position(|column| column.name == "run_id")
        .expect("every table has run_id");
    for batch in reader {
        let batch = batch.map_err(arrow_error)?;
        let ids = batch
            .column(run_column)
            .as_any()
            .downcast_ref::<StringArray>()
            .ok_or_else(|| io::Error::other(format!("{}: run_id is not text", from.display())))?;
        let keep: BooleanArray = (0..ids.len())
            .map(|i| Some(ids.is_null(i) || !drop.contains(ids.value(i))))
            .collect();
        let kept = arrow_select::filter::filter_record_batch(&batch, &keep).map_err(arrow_error)?;
        if kept.num_rows() == 0 {
            continue;
        }
        // The file's own schema (its metadata aside) is the table's: written by this version.
        let kept = RecordBatch::try_new(out.schema.clone(), kept.columns().to_vec())
            .map_err(arrow_error)?;
        out.rows += kept.num_rows() as u64;
        out.write(&kept)?;
    }
    out.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::parquet::schema::TABLES;

    /// A row of `table` whose first text cell is `text`, its other cells short values.
    fn row(table: &Table, text: &str) -> Vec<Cell> {
        let mut filled = false;
        table
            .columns
            .iter()
            .map(|column| match column.kind {
                ColumnType::Text if !filled => {
                    filled = true;
                    Cell::Text(Some(text.to_owned()))
                }
                ColumnType::Text => Cell::Text(Some("x".to_owned())),
                ColumnType::Int => Cell::Int(Some(1)),
                ColumnType::Float => Cell::Float(Some(1.0)),
                ColumnType::Bool => Cell::Bool(Some(true)),
                ColumnType::Time => Cell::Time(Some(1)),
            })
            .collect()
    }

    /// A few rows of long text are handed to the Parquet writer as they come, not held
    /// until the file is finished (then encoded alone, after the workers are done), and
    /// they are all in the file.
    #[test]
    fn rows_of_long_text_are_encoded_as_they_come() {
        let dir = std::env::temp_dir().join(format!("axt-write-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("tool_calls.parquet");
        let table = TABLES.iter().find(|t| t.name == "tool_calls").unwrap();
        let mut writer = TableWriter::new(table, file.clone());
        let text = "e".repeat(BATCH_TEXT_BYTES / 2 + 1);
        writer.push(row(table, &text)).unwrap();
        assert_eq!(writer.buffered, 1);
        assert!(writer.writer.is_none(), "no file before a batch is full");
        writer.push(row(table, &text)).unwrap();
        assert_eq!(writer.buffered, 0, "a megabyte of text is a batch");
        assert!(writer.writer.is_some());
        writer.push(row(table, "short")).unwrap();
        assert_eq!(writer.finish().unwrap(), 3);
        let rows: usize = ParquetRecordBatchReaderBuilder::try_new(File::open(&file).unwrap())
            .unwrap()
            .build()
            .unwrap()
            .map(|batch| batch.unwrap().num_rows())
            .sum();
        assert_eq!(rows, 3);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
