//! The dataset's schema, version [`SCHEMA_VERSION`]: six tables, each defined once here as
//! a row type (what the exporter fills) and the column list the Parquet files, the
//! published page (`docs/parquet.md`, which a test holds equal to this list) and the engines
//! see.
//!
//! This file owns the column names, types, order and meanings. It must not compute a value
//! (`rows.rs` does) nor know Arrow (`write.rs` maps [`ColumnType`] onto Arrow types).
//!
//! **Versioning.** `MAJOR.MINOR`: a column added (at the end of its table, nullable or with a
//! stated default for older files) or a new value of an enumerated column bumps the minor;
//! a column removed, renamed, retyped or given another meaning bumps the major, and an
//! export refuses to write into a dataset of another major (`_axt/dataset.json`). Every
//! file carries the version in its key-value metadata (`axt.schema_version`), and every
//! `runs` row in `schema_version`.

/// The schema version this build writes.
pub const SCHEMA_VERSION: &str = "1.0";

/// A column's type, as every engine reads it (Parquet physical and logical type).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColumnType {
    /// UTF-8 text (`BYTE_ARRAY` `STRING`; DuckDB `VARCHAR`, Spark `string`).
    Text,
    /// A 64-bit signed integer (`INT64`; DuckDB `BIGINT`, Spark `bigint`). Counts are
    /// signed so that every engine sums them without a cast.
    Int,
    /// A 64-bit float (`DOUBLE`).
    Float,
    /// A boolean.
    Bool,
    /// An instant, microseconds since the Unix epoch, UTC (`INT64`
    /// `TIMESTAMP(MICROS, isAdjustedToUTC=true)`; DuckDB `TIMESTAMP WITH TIME ZONE`, Spark
    /// `timestamp`).
    Time,
}

impl ColumnType {
    /// The name the published page uses.
    pub fn as_str(self) -> &'static str {
        match self {
            ColumnType::Text => "string",
            ColumnType::Int => "int64",
            ColumnType::Float => "double",
            ColumnType::Bool => "boolean",
            ColumnType::Time => "timestamp",
        }
    }
}

/// One column of a table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Column {
    /// Its name.
    pub name: &'static str,
    /// Its type.
    pub kind: ColumnType,
    /// Whether it may be null.
    pub nullable: bool,
    /// What it holds.
    pub doc: &'static str,
}

/// One table: its directory under the dataset, what one row is, its columns in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Table {
    /// The table's name, also its directory.
    pub name: &'static str,
    /// What one row stands for.
    pub grain: &'static str,
    /// Its columns, in file order. The partition column, `date`, is not among them: it is
    /// in the file's path (`date=YYYY-MM-DD`), as Hive partitioning puts it.
    pub columns: &'static [Column],
}

/// One value of a row, in the order of its table's columns.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    /// A text value.
    Text(Option<String>),
    /// An integer.
    Int(Option<i64>),
    /// A float.
    Float(Option<f64>),
    /// A boolean.
    Bool(Option<bool>),
    /// Microseconds since the Unix epoch.
    Time(Option<i64>),
}

/// A row of one of the [`TABLES`].
pub trait Row {
    /// Its table.
    const TABLE: &'static Table;
    /// The index of its table in [`TABLES`].
    const INDEX: usize;
    /// Its values, in column order.
    fn cells(self) -> Vec<Cell>;
}

/// How a Rust field maps onto a column: the column types spelt as the row types use them.
pub trait Kind {
    /// The field's Rust type.
    type Value;
    /// The column's type.
    const TYPE: ColumnType;
    /// Whether the column may be null.
    const NULLABLE: bool;
    /// The value as a cell.
    fn cell(value: Self::Value) -> Cell;
}

macro_rules! kinds {
    ($($(#[$doc:meta])* $name:ident: $value:ty, $column:ident, $nullable:literal, |$v:ident| $cell:expr;)*) => {$(
        $(#[$doc])*
        #[derive(Debug)]
        pub enum $name {}
        impl Kind for $name {
            type Value = $value;
            const TYPE: ColumnType = ColumnType::$column;
            const NULLABLE: bool = $nullable;
            fn cell($v: $value) -> Cell {
                $cell
            }
        }
    )*};
}

kinds! {
    /// Text, never null.
    Str: String, Text, false, |v| Cell::Text(Some(v));
    /// Text or null.
    OptStr: Option<String>, Text, true, |v| Cell::Text(v);
    /// An integer, never null.
    Int: i64, Int, false, |v| Cell::Int(Some(v));
    /// An integer or null.
    OptInt: Option<i64>, Int, true, |v| Cell::Int(v);
    /// A float or null.
    OptFloat: Option<f64>, Float, true, |v| Cell::Float(v);
    /// A boolean, never null.
    Flag: bool, Bool, false, |v| Cell::Bool(Some(v));
    /// An instant (microseconds since the epoch, UTC) or null.
    OptTime: Option<i64>, Time, true, |v| Cell::Time(v);
}

/// Defines each table once: its row struct (fields in column order, typed by [`Kind`]),
/// its [`Table`] and the [`Row`] impl that turns a row into cells.
macro_rules! tables {
    ($(
        $(#[doc = $tdoc:literal])*
        $row:ident => $table:ident $name:literal [$index:literal], $grain:literal {
            $($(#[doc = $doc:literal])+ $col:ident: $kind:ident,)*
        }
    )*) => {
        $(
            $(#[doc = $tdoc])*
            #[derive(Clone, Debug, Default, PartialEq)]
            pub struct $row {
                $($(#[doc = $doc])+ pub $col: <$kind as Kind>::Value,)*
            }

            #[doc = concat!("The `", $name, "` table.")]
            pub const $table: Table = Table {
                name: $name,
                grain: $grain,
                columns: &[$(Column {
                    name: stringify!($col),
                    kind: <$kind as Kind>::TYPE,
                    nullable: <$kind as Kind>::NULLABLE,
                    doc: concat!($($doc),+),
                },)*],
            };

            impl Row for $row {
                const TABLE: &'static Table = &$table;
                const INDEX: usize = $index;
                fn cells(self) -> Vec<Cell> {
                    vec![$(<$kind as Kind>::cell(self.$col),)*]
                }
            }
        )*

        /// Every table, in the order the published page lists them.
        pub const TABLES: [&Table; 6] = [$(&$table,)*];
    };
}

tables! {
    /// A row of `runs`.
    RunRow => RUNS "runs" [0], "one per run: each transcript file, sub-runs included" {
        /// The run's id (`run_id` of its events; its file is `<run_id>.jsonl`). The key.
        run_id: Str,
        /// The run that invoked it (`parent_run_id`); null for a run nothing invoked.
        parent_run_id: OptStr,
        /// Its topmost ancestor among the runs known when it was exported (this export's and
        /// the dataset's); itself for a run nothing invoked.
        root_run_id: Str,
        /// How it came to be: `root` (nothing invoked it), `workflow` (a sub-workflow: its
        /// `run.started` kind is `workflow`), `subagent` (any other run with a parent: a
        /// sub-agent, an imported session's agent).
        lineage_kind: Str,
        /// `name` of its `run.started`: the workflow's name, or the adapter of a normalized run.
        name: OptStr,
        /// `kind` of its `run.started` (`workflow`, `agent`, ...).
        kind: OptStr,
        /// The adapter that read the agent's output, by the name `--provider` takes (`claude`,
        /// `codex`, ...): the run metadata's `provider`, else that of its first agent step;
        /// null when the run has none.
        provider: OptStr,
        /// The product that made the output (`Claude Code`, `Codex CLI`, ...), from `provider`.
        agent: OptStr,
        /// The agent CLI's version as it reported it (the metadata's `provider_version`).
        cli_version: OptStr,
        /// The model that answered (the last one the run metadata names).
        model: OptStr,
        /// The provider's session id.
        session_id: OptStr,
        /// `completed`, `failed` (the run's `error`, or the metadata's status `failed`) or
        /// `incomplete` (no `run.completed`).
        status: Str,
        /// The agent process's exit code, when axt ran it and recorded how it ended.
        exit_code: OptInt,
        /// Why the model stopped, normalized (`end_turn`, `tool_use`, `max_tokens`,
        /// `max_turns`, `stop_sequence`, `refusal`, `aborted`, `error`, `other`).
        stop_reason: OptStr,
        /// The first event's time.
        started_at: OptTime,
        /// The last event's time.
        ended_at: OptTime,
        /// How long the run took in milliseconds: the metadata's `duration_ms`, else
        /// `run.started` to `run.completed` (as `axt stats` counts it); null without either.
        duration_ms: OptInt,
        /// Uncached input tokens, over the run metadata of the run and its agent steps (as
        /// `axt stats` sums them; the wire format's token convention).
        input_tokens: Int,
        /// Output tokens, reasoning included.
        output_tokens: Int,
        /// Input tokens read from the prompt cache.
        cache_read_tokens: Int,
        /// Input tokens written to the prompt cache.
        cache_write_tokens: Int,
        /// The part of `output_tokens` spent on reasoning.
        reasoning_tokens: Int,
        /// Cost in US dollars as the provider reported it, summed over the run metadata;
        /// null when no provider reported one.
        cost_usd_reported: OptFloat,
        /// What the tokens and cost span: `run` (what the run spent) or `session` (the
        /// provider session's running total at the run's end, earlier runs it resumed
        /// included: Claude Code 2.1.277 and later). Add `session` rows up once per
        /// `session_id`, by its largest total, as `axt stats` does (the "Total spend" query).
        usage_scope: Str,
        /// Events in the file.
        n_events: Int,
        /// `message.user` and `message.assistant` events.
        n_messages: Int,
        /// Steps (`step.started` events, and completions without one).
        n_steps: Int,
        /// Model responses (rows in `llm_calls`).
        n_llm_calls: Int,
        /// Tool calls, each counted once (rows in `tool_calls` with a `seq`).
        n_tool_calls: Int,
        /// Tool results that failed (an error or a non-zero exit code).
        n_tool_failures: Int,
        /// Errors the provider reported in the run metadata, fatal or not.
        n_errors: Int,
        /// Problems the reader found in the file (rows in `diagnostics` with source `read`).
        n_problems: Int,
        /// Sub-runs it invoked (`step.call_workflow.started` events).
        n_sub_runs: Int,
        /// Records the adapter saw in the agent's output (its input report), 0 for a run not
        /// normalized from one.
        records_seen: Int,
        /// Of those, the records it read into blocks or metadata.
        records_mapped: Int,
        /// Of those, the records it kept verbatim without reading them (passthrough).
        records_passthrough: Int,
        /// Of those, the records it could not use: skipped (unusable) or unreadable.
        records_unmapped: Int,
        /// Fields the adapter did not know, counted once per record they appeared in.
        unknown_fields: Int,
        /// SHA-256 (hex) of the run's prompt: the text of its first `message.user`, the system
        /// prompt left out; null without one. Runs of one prompt share it.
        prompt_sha256: OptStr,
        /// The transcript's file name, without its directory.
        source_file: Str,
        /// SHA-256 (hex) of the transcript's bytes: with `run_id`, what an incremental export
        /// compares.
        source_sha256: Str,
        /// The transcript's size in bytes.
        source_bytes: Int,
        /// The axt version that exported the run.
        axt_version: Str,
        /// The schema version the row was written in (`MAJOR.MINOR`).
        schema_version: Str,
    }

    /// A row of `steps`.
    StepRow => STEPS "steps" [1], "one per step of a run (`step.started` to its `step.completed`)" {
        /// The run.
        run_id: Str,
        /// `seq` of the `step.started` (of the `step.completed` for a completion without
        /// one): with `run_id`, the key.
        seq: Int,
        /// The dot-separated step path (`build`, `review.agent`).
        path: Str,
        /// The step's name.
        name: Str,
        /// The step's kind (`agent`, `command`, `operation`, `for_each`, `call_workflow`, a
        /// custom kind, ...).
        kind: Str,
        /// The loop or retry iteration, from 0.
        iteration: Int,
        /// `completed`, `failed` (its `step.completed` has an `error`) or `incomplete` (no
        /// `step.completed`).
        status: Str,
        /// The error of a failed step, credentials masked.
        error: OptStr,
        /// When it started.
        started_at: OptTime,
        /// When it completed.
        ended_at: OptTime,
        /// How long it ran in milliseconds: its `duration_ms`, else the timestamps'
        /// difference.
        duration_ms: OptInt,
        /// The sub-run a `call_workflow` step invoked.
        child_run_id: OptStr,
        /// The adapter of an agent step that carries its agent's run metadata.
        provider: OptStr,
        /// The model of that agent.
        model: OptStr,
        /// The step's own uncached input tokens: the run metadata its `step.completed`
        /// carries (a workflow's agent step), or, for the agent step of a run normalized
        /// from one agent's output, the run's.
        input_tokens: Int,
        /// The step's own output tokens.
        output_tokens: Int,
        /// The step's own cache-read tokens.
        cache_read_tokens: Int,
        /// The step's own cache-write tokens.
        cache_write_tokens: Int,
        /// The step's own reasoning tokens.
        reasoning_tokens: Int,
        /// The step's own reported cost in US dollars; null when none was reported.
        cost_usd_reported: OptFloat,
        /// Uncached input tokens of the step and every step nested in it (by path, in the
        /// same run; sub-runs are rows of `runs`, joined by `child_run_id`).
        subtree_input_tokens: Int,
        /// Output tokens of the subtree.
        subtree_output_tokens: Int,
        /// Cache-read tokens of the subtree.
        subtree_cache_read_tokens: Int,
        /// Cache-write tokens of the subtree.
        subtree_cache_write_tokens: Int,
        /// Reasoning tokens of the subtree.
        subtree_reasoning_tokens: Int,
        /// Reported cost of the subtree; null when no step of it reported one.
        subtree_cost_usd_reported: OptFloat,
        /// Model responses inside the step (nested steps included).
        n_llm_calls: Int,
        /// Tool calls inside the step (nested steps included).
        n_tool_calls: Int,
    }

    /// A row of `llm_calls`.
    LlmCallRow => LLM_CALLS "llm_calls" [2], "one per model response: consecutive `message.assistant` events of one message id (the tool calls it asks for, and the sub-runs they start, in between)" {
        /// The run.
        run_id: Str,
        /// `seq` of the response's first `message.assistant`: with `run_id`, the key.
        seq: Int,
        /// The path of the step it happened in.
        step_path: Str,
        /// That step's iteration.
        iteration: Int,
        /// The provider's message id (`message_id`).
        response_id: OptStr,
        /// The adapter (the run's, or the agent step's in a workflow run).
        provider: OptStr,
        /// The model (the run's, or the agent step's).
        model: OptStr,
        /// When the model was asked: the time of the event before the response.
        started_at: OptTime,
        /// The time of its last `message.assistant`.
        ended_at: OptTime,
        /// `ended_at - started_at` in milliseconds.
        duration_ms: OptInt,
        /// Content blocks in the response.
        n_blocks: Int,
        /// Whether it holds a `thinking` block.
        has_thinking: Flag,
        /// Tool calls it asked for (`tool_use` blocks that are not a server tool's).
        n_tool_calls: Int,
        /// `tool_call` when it asked for a tool, else the run's finish reason for its last
        /// response (`stop`, `length`, `content_filter`, `error`, `max_turns`, `aborted`, or
        /// the provider's own word), else `stop`: the OpenTelemetry GenAI spelling.
        finish_reason: Str,
        /// Uncached input tokens: the run's when this was the run's only model response
        /// (transcripts carry usage per run); null otherwise.
        input_tokens: OptInt,
        /// Output tokens, on the same terms.
        output_tokens: OptInt,
        /// Cache-read tokens, on the same terms.
        cache_read_tokens: OptInt,
        /// Cache-write tokens, on the same terms.
        cache_write_tokens: OptInt,
        /// Reasoning tokens, on the same terms.
        reasoning_tokens: OptInt,
    }

    /// A row of `tool_calls`.
    ToolCallRow => TOOL_CALLS "tool_calls" [3], "one per tool call, a call seen on both channels once (`axt::read::Calls`), and one per result without its call" {
        /// The run.
        run_id: Str,
        /// `seq` of the `tool.call`; null for a result whose call is not in the file. With
        /// `run_id` and `result_seq`, the key.
        seq: OptInt,
        /// `seq` of its `tool.result`; null when no result came.
        result_seq: OptInt,
        /// The path of the step it happened in.
        step_path: Str,
        /// That step's iteration.
        iteration: Int,
        /// The call id.
        call_id: Str,
        /// The id the agent reported the same call under, when the router's differs.
        agent_call_id: OptStr,
        /// The tool's name (the router's, for a call seen on both channels).
        name: Str,
        /// What the tool does, from axt's one table of tool classes: `shell`, `file_read`,
        /// `file_write`, `file_edit`, `file_patch`, `search`, `web_fetch`, `web_search`,
        /// `sub_agent`, `plan`; null for a tool the table does not know (MCP tools, custom
        /// functions).
        tool_class: OptStr,
        /// `router` (captured at the executor's tool router) or `agent_emitted`.
        fidelity: Str,
        /// Whether the agent reported a call the router captured.
        sighted: Flag,
        /// `success`, `error` (an error or a non-zero exit code) or `no_result`.
        status: Str,
        /// A shell command's exit code, when known.
        exit_code: OptInt,
        /// The result's error, credentials masked.
        error: OptStr,
        /// When it was called (null for a result without its call).
        started_at: OptTime,
        /// When its result came.
        ended_at: OptTime,
        /// How long it ran in milliseconds: the result's `duration_ms`, else the timestamps'
        /// difference.
        duration_ms: OptInt,
        /// The arguments' size in bytes, as compact JSON.
        input_bytes: OptInt,
        /// The result's size in bytes (a string's UTF-8 length, else compact JSON).
        output_bytes: OptInt,
        /// SHA-256 (hex) of the arguments as compact JSON with sorted keys: equal for equal
        /// arguments, so repeated calls group.
        input_sha256: OptStr,
        /// A decision on the call, where the provider reported one: `deny` (a permission
        /// denial, Claude Code's `permission_denials`).
        decision: OptStr,
    }

    /// A row of `content` (written only with `--content`).
    ContentRow => CONTENT "content" [4], "one per content block, and one per tool call's arguments and result (only with `--content`)" {
        /// The run.
        run_id: Str,
        /// `seq` of its event.
        seq: Int,
        /// The block's index in its event, from 0 (0 for a tool payload). With `run_id` and
        /// `seq`, the key.
        block_index: Int,
        /// Its event's type.
        event_type: Str,
        /// The message's role (`user`, `assistant`), null on tool events.
        role: OptStr,
        /// The path of the step it happened in.
        step_path: Str,
        /// The block's type (`text`, `thinking`, `tool_use`, `tool_result`, `command`,
        /// `stream`, or an unknown type as written), or `tool_input` / `tool_output` for
        /// the arguments of a `tool.call` and the result of a `tool.result`.
        block_type: Str,
        /// Its text: the text, thinking, command line or chunk; a tool's arguments or
        /// result as compact JSON unless it is a string.
        text: OptStr,
        /// The tool's name (`tool_use`, `tool_input`, `tool_output`).
        tool_name: OptStr,
        /// The tool call id.
        tool_id: OptStr,
        /// Whether it is the composed system prompt of a `message.user`.
        system_prompt: Flag,
        /// `text`'s size in bytes.
        bytes: Int,
        /// Whether `--redact` masked a credential in it.
        redacted: Flag,
    }

    /// A row of `diagnostics`.
    DiagnosticRow => DIAGNOSTICS "diagnostics" [5], "one per problem: the loss ledger (reader problems, what the adapter could not map, provider errors)" {
        /// The run; null for a file with no event.
        run_id: OptStr,
        /// The transcript's file name.
        source_file: Str,
        /// The transcript's SHA-256 (hex).
        source_sha256: Str,
        /// Who found it: `read` (the transcript reader: a line that is no event, a `seq`
        /// gap, ...), `adapter` (the run metadata's input report: records not mapped, fields
        /// not known) or `provider` (an error the provider reported).
        source: Str,
        /// What kind: the reader's problem kind (`invalid-json`, `seq-gap`, ...), or
        /// `skipped`, `unreadable`, `passthrough`, `unknown-field`, `provider-error`.
        kind: Str,
        /// `error`, `warning` or `info`.
        severity: Str,
        /// The transcript line (`read`), or the agent output's line (`provider`).
        line: OptInt,
        /// The byte offset of that transcript line (`read`).
        offset: OptInt,
        /// The provider's record type (`type` or `type/subtype`) the row is about (`adapter`).
        record_type: OptStr,
        /// The unknown field's name (`unknown-field`).
        field: OptStr,
        /// How many: 1 for a problem, the records or fields counted for the others.
        count: Int,
        /// What exactly, credentials masked.
        message: Str,
    }
}
