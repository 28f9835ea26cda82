//! The Agent Exchange Transcript: the canonical wire format and its Rust model.
//!
//! This module owns the vocabulary and the JSON shapes, and imports nothing else of the
//! crate. It does not read files, assign sequence numbers or know any provider's dialect:
//! framing records belongs to the normalizers, sequence numbers to the sink that writes the
//! transcript (see `seq` below), and provider dialects to their adapters. Small files
//! serve every stage that reads or classifies: `lines`, the one set of JSON Lines splitting
//! rules (the framer, the reader and the importer use it, so that `read` need not import
//! `normalize`); [`tools`], the one table of tool classes (the tool names providers put in
//! `tool.*` payloads are the vocabulary of those payloads); [`files`], the names of a run's
//! files (so that the writers and every reader that walks a directory agree on which are
//! transcripts); `provider.rs`, the registry of providers ([`Provider`]); and `meta.rs`
//! with `report.rs`, the run metadata a normalized run's `run.completed` carries
//! ([`RunMeta`], read back typed by [`RunMeta::of`]).
//!
//! # Wire format
//!
//! A transcript is a file of [JSON Lines]: UTF-8, one JSON object per line, each line ended by
//! a single LF. Every line is one *event*. Within a file, `seq` starts at 1 and increases by
//! exactly 1 per line, in file order. One file holds one run; a sub-run invoked by a run is
//! written to its own file and linked in both directions (see `parent_run_id` and
//! `child_run_id`).
//!
//! Writers are strict, readers are tolerant. A writer ([`encode_event`]) emits only values of
//! the closed vocabularies below and refuses anything else before a byte is written. A reader
//! ([`decode_event`]) accepts any well-formed event: values outside the vocabularies are kept
//! intact and listed by [`warnings`], never a reason to reject the line.
//!
//! ## The envelope
//!
//! Every event is an object with these fields, written in this order:
//!
//! * `seq` - unsigned 64-bit integer. The event's position in the file, from 1, strictly
//!   increasing by 1 in file order. Assigned by whoever writes the transcript, and by
//!   nothing else: the [`Recorder`](crate::record::Recorder) for a run file (it alone
//!   allocates `seq` there, and continues it after a crash), or
//!   [`JsonlSink`](crate::transcribe::JsonlSink) for a transcript written to any `Write`
//!   (stdout), where there is no recorder. The two sit side by side in
//!   [`transcribe::sinks`](crate::transcribe::sinks); everything else makes events with
//!   `seq` 0.
//! * `run_id` - string, non-empty. The run the file belongs to; also the file's name
//!   (`<run_id>.jsonl`). A UUID where the executor has one.
//! * `parent_run_id` - string, optional. Present on *every* event of a sub-run: the run that
//!   invoked it. Omitted when there is none (never written empty).
//! * `child_run_id` - string, optional. Present on `step.call_workflow.started` and
//!   `step.call_workflow.completed`, and only there: the sub-run they invoke.
//! * `type` - string. One of the ten [event types](#event-types).
//! * `path` - string. The dot-separated step path (`analyze`, `parallel_block.branch_a`);
//!   empty on run-level events.
//! * `iteration` - unsigned integer. Zero-based loop or retry counter; 0 outside loops.
//! * `timestamp` - string. RFC 3339 date-time of the event. For events made from provider
//!   output, the provider's own time where it stamps its records (kept as it wrote it), else
//!   the time of emission (or a caller's fixed clock); the rule is in
//!   [`transcribe::mapper`](crate::transcribe::mapper). axt writes its own times in UTC with
//!   microseconds (`2026-06-08T08:14:42.123456Z`); readers accept any offset and precision
//!   and keep the text as it was.
//! * `payload` - the event's data, shaped by `type`; `null` on run events that carry none.
//!
//! ## Event types
//!
//! | `type`                          | payload            |
//! |---------------------------------|--------------------|
//! | `run.started`, `run.completed`  | step payload, or `null` |
//! | `step.started`, `step.completed`| step payload       |
//! | `step.call_workflow.started`, `step.call_workflow.completed` | step payload; the envelope has `child_run_id` |
//! | `message.user`                  | message payload, `role` `"user"`: the resolved prompt and, when there is one, the composed system prompt (a `text` block with `system_prompt: true`) |
//! | `message.assistant`             | message payload, `role` `"assistant"`: the agent's reply |
//! | `tool.call`, `tool.result`      | tool payload       |
//!
//! ## Payloads
//!
//! The *step payload* (`run.*`, `step.*`):
//!
//! * `name` - string. Step name, or the workflow name on `run.*` events.
//! * `kind` - string, never empty. Step type: `agent`, `command`, `operation`, `terminal`,
//!   `parallel`, `for_each`, `while`, `call_workflow`, `workflow` (the `run.*` events of a
//!   workflow run), or a custom type name ([`StepKind`]).
//! * `error` - string, optional. Failure description on `*.completed`; omitted on success.
//! * `result` - any JSON, optional. The step's result on `*.completed`; omitted when null.
//!   On the `run.completed` of a run normalized from an agent's output it is the run's
//!   metadata, [`RunMeta`], documented field by field there;
//!   `answer` in it is the final answer as the agent's terminal record states it.
//! * `duration_ms` - unsigned integer, optional (*extension*). On `*.completed`: how long
//!   the step ran, measured by the writer on a monotonic clock (the timestamps' difference
//!   can disagree when the wall clock moves).
//!
//! The *message payload* (`message.*`):
//!
//! * `role` - `"user"` or `"assistant"`, matching the event type.
//! * `blocks` - array of [content blocks](#content-blocks), in order.
//! * `message_id` - string, optional (*extension*). The provider's id of the message the
//!   blocks belong to; one provider message may be spread over several events (Claude Code
//!   sends one block per line), and they share it.
//!
//! The *tool payload* (`tool.*`):
//!
//! * `name` - string. Tool name (`Read`, `Bash`, an MCP tool, ...).
//! * `call_id` - string. Links a `tool.call` to its `tool.result`.
//! * `input` - any JSON. The arguments; always written, `null` on `tool.result`.
//! * `output` - any JSON. The return value; always written, `null` on `tool.call`.
//! * `error` - string, optional. Failure description on `tool.result`; omitted on success.
//! * `fidelity` - `"router"` or `"agent_emitted"`, as on blocks.
//! * `exit_code` - integer, optional (*extension*). On `tool.result` of a shell command: its
//!   exit status, when known.
//! * `duration_ms` - unsigned integer, optional (*extension*). On a `tool.result` the writer
//!   timed (the router seam does): how long the call ran.
//! * `agent_call_id` - string, optional (*extension*). On a `router` payload: the id under
//!   which the agent reported the same call, when it is not `call_id` (see below).
//!
//! ### Calls seen on both channels
//!
//! An executor may capture a call at its tool router (`router`) that the agent also reports
//! in its output (`agent_emitted`). The rule, for writers and readers:
//!
//! * **One call, one pair.** A writer records such a call as exactly one `tool.call` and
//!   one `tool.result`, with fidelity `router`. The agent's sighting is provenance, not a
//!   second call: its `tool_use` block stays in its `message.assistant` (fidelity
//!   `agent_emitted`), and no `agent_emitted` `tool.call` or `tool.result` is written for
//!   it. ([`workflow`](crate::workflow) does this for an executor; how it matches and
//!   orders the two sightings is documented there.)
//! * **Matching.** Two sightings are one call when they have the same call id. When the
//!   router knows the call under another id (an MCP request id, say), the writer matches
//!   it to the agent's call of the same tool (equal names, or the agent's
//!   `mcp__<server>__<name>` for the router's `<name>`) with equal input, in the same step,
//!   earliest first, and writes the agent's id as `agent_call_id` on the router's events
//!   written after the match.
//! * **Readers** count a call once per call id and run: when a file holds `tool.call`s of
//!   both fidelities for one id (or an `agent_emitted` one whose id a `router` payload
//!   names in `agent_call_id`), the `router` events are the call and the `agent_emitted`
//!   ones a sighting of it.
//!
//! A reader picks the payload shape from the JSON alone (the schema's tolerant dispatch): an
//! array is a list of blocks; an object with `role` is a message payload, else one with
//! `call_id` a tool payload, else one with `kind` a step payload; any other value is kept as
//! raw JSON; `null` or a missing `payload` is no payload. An object whose keys select a shape
//! it does not fit (say `role` is a number) is kept as read and reported as
//! [`DecodeWarning::MalformedPayload`]. See [`Payload`].
//!
//! The `result` of the `run.completed` of a run made from provider output is the run's
//! metadata ([`RunMeta`]: provider, session, model, usage, status,
//! errors, passthrough records, ...), with, among its fields:
//!
//! * `source_times` - object, optional: `first` and `last`, the earliest and latest stamps
//!   the provider put on its records (RFC 3339 strings); absent when it stamped none.
//! * `report` - object: what the adapter saw and did. `records` maps each record type key
//!   (`type`, or `type/subtype`) to `{seen, mapped?, passthrough?, ignored?, skipped?,
//!   unknown_fields?}` (counts, zero ones omitted; `unknown_fields` maps a field name to the
//!   number of records it was in); `unreadable` counts the records that could not be read.
//!   See [`InputReport`].
//!
//! ## Token usage
//!
//! An agent run's `run.completed` carries the run's metadata as its `result`; its `usage`
//! object has five unsigned integers with one meaning whatever the provider:
//!
//! * `input_tokens` - prompt tokens neither read from nor written to a prompt cache;
//! * `cache_read_tokens` - prompt tokens read from the cache;
//! * `cache_write_tokens` - prompt tokens written to the cache;
//! * `output_tokens` - every token the model generated, **reasoning included**;
//! * `reasoning_tokens` - the part of `output_tokens` spent on reasoning (0 when the
//!   provider does not say).
//!
//! The three input kinds add up to the whole prompt, and the four non-reasoning fields to
//! every token billed. Providers that count otherwise (cached tokens inside the input,
//! reasoning beside the output) are converted by their adapters; the table per provider is
//! in [`crate::normalize`]'s docs. The provider's own record is kept verbatim as
//! `raw_usage`.
//!
//! `usage_scope` - string, optional: what `usage` and `cost_usd` span. Absent, the run's own
//! spending; `"session"`, the running total of the provider session (`session_id`) at the
//! run's end, the earlier runs that the run resumed included (Claude Code 2.1.277 and later
//! report so). A reader adding runs up adds the first kind, and counts each session of the
//! second kind once, by its largest total: the rule of
//! [`UsageScope`], as `axt stats` and the AgentLog export
//! apply it (the OTLP export marks such a run's span `axt.usage.scope`).
//!
//! ## Content blocks
//!
//! Every block has:
//!
//! * `type` - one of `text`, `thinking`, `tool_use`, `tool_result`, `command`, `stream`.
//! * `fidelity` - `"router"`: synthesized by the executor at its tool router seam, the
//!   authoritative record of an in-process call; `"agent_emitted"`: reported by the agent in
//!   its own output. Consumers use it to avoid counting one call seen on two channels twice.
//!   Everything axt normalizes from provider output is `agent_emitted`.
//!
//! and, by type, the fields below. The fields the seed defines are always written for their
//! type, even when empty. Fields marked *extension* carry what the seed's fields cannot; they
//! are omitted when false or absent, so a seed-only reader never sees them on ordinary data
//! and ignores them otherwise.
//!
//! * `text`: `text` (string, verbatim; NUL and every other code point preserved);
//!   `citations` (*extension*, array, omitted when empty: the sources the provider cited for
//!   this text, in its order; see below); `system_prompt` (*extension*, `true` on the
//!   composed system prompt in a `message.user`). **The rule:** in a `message.user`, a
//!   `text` block with `system_prompt: true` is the system prompt and every other block is
//!   the prompt; readers must not tell them apart by position. Writers put the prompt
//!   first, and at most one system prompt block per message.
//! * `thinking`: `thinking` (string); `signature` (*extension*, string: the opaque token a
//!   provider needs to accept the reasoning when it is replayed to it: Anthropic `signature`
//!   or the `data` of `redacted_thinking`, OpenAI `encrypted_content`, Gemini
//!   `thought_signature`); `redacted` (*extension*, `true` when the provider withheld the
//!   text, which is then empty).
//! * `tool_use`: `tool_name` (string), `tool_id` (string), `tool_input` (any JSON: the
//!   arguments; a string when the provider's arguments were not valid JSON); `server`
//!   (*extension*, `true` when the provider ran the tool itself, such as Anthropic
//!   `server_tool_use`, so no executor result will follow); `incomplete` (*extension*,
//!   `true` when the stream ended before the arguments were complete); `permission`
//!   (*extension*, an object: the decision the client made when the agent asked permission
//!   to run the call, ACP's `session/request_permission`: `decision` `allowed`, `rejected` or
//!   `cancelled`, and the chosen option's `option_id`, `option_kind` and `option_name` as the
//!   agent offered it).
//! * `tool_result`: `tool_id` (string: the `tool_id` of the `tool_use` it answers),
//!   `tool_content` (any JSON: string, structured value, or `null`); `is_error`
//!   (*extension*, `true` when the tool failed); `exit_code` (*extension*, integer: the exit
//!   status of a shell command, when known).
//! * `command`: `command` (string: the command line as run); `tool_id` (*extension*,
//!   string: the tool call that ran it, when there was one).
//! * `stream`: `chunk` (string: one chunk of partial output). The seed's table says both
//!   "`chunk`" and "in `text` field", so the spelling is ambiguous. **Decision:** writers
//!   write `chunk`; readers read `chunk`, and fall back to `text` when `chunk` is absent.
//!
//! A *citation* (an element of `citations`) is an object with these fields, written in this
//! order; every one but `type` is omitted when absent:
//!
//! * `type` - string. The provider's kind of citation, as the provider spells it: OpenAI
//!   `url_citation`, `file_citation`, `container_file_citation`, `file_path`; Anthropic
//!   `char_location`, `page_location`, `content_block_location`,
//!   `web_search_result_location`, `search_result_location`; Perplexity `search_result`
//!   (one of its `search_results`) or `url` (a bare URL of its `citations`).
//! * `url` - string. The cited web page.
//! * `title` - string. The title of the cited page or document (Anthropic
//!   `document_title`).
//! * `file_id` - string. The provider's id of the cited file.
//! * `filename` - string. The name of the cited file.
//! * `cited_text` - string. The passage of the source the text relies on (Anthropic quotes
//!   it).
//! * `start_index`, `end_index` - unsigned integers. The span of the block's `text` the
//!   citation is attached to, `[start_index, end_index)`, in the provider's unit (OpenAI:
//!   characters). Absent when the citation applies to the whole block (Anthropic). When a
//!   provider's text arrived in several parts that axt joined into one block, the offsets
//!   are moved to count from the start of the joined text.
//! * `extra` - object. The provider's other fields about the source, verbatim (OpenAI
//!   `index`, `container_id`; Anthropic `document_index`, `start_char_index`,
//!   `end_char_index`, `start_page_number`, `encrypted_index`, ...; Perplexity `date`,
//!   `snippet`).
//!
//! Optional strings are never empty (the writer refuses `Some("")`). A reader ignores
//! citation fields it does not know; a citation that is not an object, or whose fields have
//! the wrong JSON types, makes its block malformed.
//!
//! A block whose `type` is not one of the six, or whose fields have the wrong JSON types, is
//! kept whole as [`Block::Unrecognized`] and reported ([`DecodeWarning::UnknownBlockType`],
//! [`DecodeWarning::MalformedBlock`]); the event around it still decodes.
//!
//! ## Versioning and forward compatibility
//!
//! * **Adding an envelope or payload field** is compatible: readers ignore fields they do not
//!   know (axt's reader does not keep them). New fields are optional and omitted when empty.
//! * **Adding an event type, block type, fidelity or role** is compatible for tolerant
//!   readers, which surface the value intact and warn; every consumer must handle that path.
//!   Writers never emit a value until it is in their vocabulary.
//! * **Removing or renaming** any value, or changing a field's type or meaning, is a breaking
//!   change and needs a coordinated schema version bump. The format has no version field
//!   today; such a bump would add one to `run.started`.
//! * Strings are JSON strings: any code point, escaped as JSON requires (control characters
//!   including NUL as `\u0000`), so a line never contains a raw LF.
//! * An optional string field is either absent or non-empty; writers refuse `Some("")`
//!   because it could not be read back as written.
//! * **One line limit, one nesting limit**, shared by every writer and reader of the crate:
//!   a line is at most [`MAX_LINE_BYTES`] (16 MiB, its LF not counted) and nests at most
//!   [`MAX_DEPTH`] levels (127, the event's own object counting as level 1). The decoder
//!   refuses a deeper line ([`DecodeCategory::TooDeep`]), so no input can exhaust the
//!   stack, and a reader skips a longer one; the strict writer refuses both
//!   ([`EncodeError::TooLong`], [`EncodeError::TooDeep`]), and every writer of transcripts
//!   first cuts what does not fit ([`fit_event`]: the largest content values cut, too-deep
//!   values replaced, a marker `[axt: ...]` where), so axt never writes a line its own
//!   readers refuse. A cut made from provider output is an `oversize-cut` diagnostic.
//! * **In Rust,** the types that will grow are `#[non_exhaustive]`: the envelope
//!   ([`ExchangeEvent`]), the three payloads, the run metadata ([`RunMeta`], [`Usage`]) and
//!   the vocabularies of kinds ([`StopKind`], the normalizer's and the reader's problem
//!   kinds). Build them with their constructors ([`ExchangeEvent::new`],
//!   [`StepPayload::new`], [`MessagePayload::new`], [`ToolPayload::call`], [`RunMeta::new`])
//!   and set the public fields. Both encoders ([`encode_event`] and the `Serialize` impls)
//!   name every field of the envelope and of each payload, so a field added to one does not
//!   compile until both write it.
//!
//! # Threat model
//!
//! What a transcript holds, and what the format promises about bytes nobody trusts. (The
//! files themselves, their modes, locks and run ids as file names are the recorder's:
//! [its threat model](crate::record#threat-model).)
//!
//! * **Transcripts hold secrets.** Prompts, system prompts, tool inputs and outputs (file
//!   contents, command output, environment dumps) are recorded verbatim, and a capture's raw
//!   copy (`<run-id>.raw`) keeps the agent's bytes unmasked. Treat a transcript as the
//!   secrets it may contain: masking is opt-in and pattern-based (the recorder's redactor,
//!   `axt exec --redact`, `axt export --redact`); it reduces exposure, it does not make a
//!   transcript publishable.
//! * **What `--redact` promises.** The credential redactor
//!   ([`Redactor::credentials`](crate::record::Redactor::credentials)) replaces each
//!   credential it recognizes with `[REDACTED:<kind>]`, in these places:
//!   * *the transcript* (`axt exec --redact`, [`RecorderOptions::redact_credentials`](crate::record::RecorderOptions::redact_credentials)):
//!     every content string of every event before it is written: block text, thinking,
//!     commands, stream chunks, tool inputs, outputs and errors, step results and errors,
//!     what citations quote or point at, and every string nested in their JSON. So also
//!     what reads the recorder live: `--follow` and the live OTLP export;
//!   * *the raw copy* of `axt exec --redact`: each JSON string decoded, so no JSON escape
//!     (`\/`, `\u002f`, `\u0041`) hides a credential; a message the agent streamed in
//!     pieces (partial-message deltas) masked joined, as the transcript sees it, the pieces
//!     then joining to the transcript's text ([`RawMasker`](crate::record::RawMasker)); a
//!     line that is not JSON, as its bytes;
//!   * *stderr*: the problems `axt exec --redact` and `axt export --redact` print (a quoted
//!     line, a quoted value); a quote of a line that is not JSON never ends inside a word;
//!   * *exports*: `axt export --redact` masks the AgentLog document; the OTLP export masks
//!     always, and without `--content` sends no message text, tool argument, result or error
//!     text at all; a collector URL is shown with its password masked.
//!
//!   The kinds: PEM and PGP private key blocks; Anthropic, OpenAI, GitHub, GitLab, Slack
//!   (tokens and webhooks), Google API keys and OAuth access tokens (`ya29.`), Hugging Face,
//!   npm and Stripe keys; AWS access key ids, secret access keys and session tokens (by
//!   their names, STS's JSON included); JWTs, `Bearer` tokens and `Authorization: Basic`
//!   credentials; passwords in URLs (database schemes and any other `scheme://user:PASSWORD@`)
//!   and after `password=`, `secret=`, `"password": "..."`, `--password`.
//! * **What `--redact` does not promise.** The patterns are specific, so that ordinary
//!   output is not damaged: a credential of another format, one without its telltale prefix
//!   or name (a bare 40-character AWS secret), one encoded (base64 inside tool output) or
//!   shorter than its pattern's minimum, and generic high-entropy strings are not masked.
//!   Identifiers are never masked: run ids, paths, step and tool names, call and file ids,
//!   object keys, timestamps, thinking signatures. Pieces are joined only within a delta
//!   stream the raw masker recognizes (a string under a key named like `delta`, or in an
//!   object with `"delta": true`), held at most a line limit long (a credential straddling
//!   that point is masked only as far as each part shows it); a credential split across
//!   unrelated records is not joined. A custom [`mask_raw`](crate::record::RecorderOptions::mask_raw)
//!   sees one line at a time. Not masked at all: the agent's own stderr and stdin, which
//!   `axt exec` passes through; the output of the commands without `--redact` (`normalize`,
//!   `import`, `cat`, `tree`, `stats`); files written before. The raw copy lags the agent
//!   by the message being streamed: what it holds back is lost if axt is killed, never
//!   written unmasked.
//! * **Provider output is hostile input.** An agent relays whatever its tools read, so any
//!   record may be adversarial. The normalizers bound what one record costs: a record over
//!   the size limit (16 MiB by default) is skipped up to its LF and reported, so memory is
//!   bounded by the limit, not the input; bytes that are not UTF-8 are replaced (U+FFFD) and
//!   reported; raw control characters inside JSON strings are kept and reported. Nothing is
//!   executed or fetched on the input's say-so.
//! * **What the strict writer guarantees.** [`encode_event`] writes only the closed
//!   vocabularies and refuses anything else before a byte is written; every string is a JSON
//!   string, with every C0 control character (NUL, ESC, ...) escaped (`\u001b`), so a line is
//!   one line (no raw LF or CR), and a transcript printed raw cannot carry a terminal escape
//!   sequence made of C0 bytes. DEL and the C1 controls (U+0080 to U+009F) and bidirectional
//!   overrides are legal in JSON strings and are written as they are: whoever shows *decoded*
//!   text on a terminal must escape them (axt's CLI does, for every input-derived string it
//!   prints).
//! * **What the tolerant reader guarantees.** [`decode_event`] accepts any well-formed event
//!   and never trusts a value's size or shape: nesting deeper than [`MAX_DEPTH`] levels is
//!   refused ([`DecodeCategory::TooDeep`]), so no line can exhaust the stack, and the reader
//!   bounds each line ([`MAX_LINE_BYTES`] by default). What axt writes is within both: an
//!   event over them is cut to fit, and the cut said ([`fit_event`]).
//! * **A transcript is not evidence.** Lines are neither signed nor chained: whoever can
//!   write the file can forge or drop events. Integrity rests on the file's permissions.
//!
//! [JSON Lines]: https://jsonlines.org/

mod block;
mod codec;
mod escaped;
mod event;
pub mod files;
mod fit;
mod limits;
pub(crate) mod lines;
mod meta;
mod output;
mod payload;
mod provider;
mod refusal;
mod report;
mod step;
mod text;
mod timestamp;
pub mod tools;
mod write;

pub use block::{Block, Citation, ContentBlock, Fidelity, UnrecognizedBlock, UnrecognizedReason};
pub use codec::{
    DecodeCategory, DecodeError, DecodeWarning, EncodeError, check_encodable, decode_event,
    encode_event, validate, warnings,
};
pub(crate) use codec::{encode_in_run, size_hint};
pub use event::{EventType, ExchangeEvent};
pub use fit::{Cut, CutReason, encode_fitted, fit_event};
pub use limits::{MAX_DEPTH, MAX_LINE_BYTES};
pub use meta::{
    Compaction, DeniedCall, PASSTHROUGH_BYTES, PASSTHROUGH_LIMIT, Passthrough, ProcessEnd,
    Retraction, RunError, RunMeta, RunStatus, SourceTimes, StopKind, StopReason, Usage, UsageScope,
};
pub use output::ToolOutput;
pub use payload::{MessagePayload, Payload, PayloadKind, Role, StepPayload, ToolPayload};
pub use provider::{Provider, UnknownProvider, Vendor};
pub use report::{InputReport, RecordCounts};
pub use step::StepKind;
pub use text::Text;
pub use timestamp::{Timestamp, TimestampError};
pub use tools::ToolClass;
pub(crate) use write::{block_mask, escape_mask, run_id_field};
