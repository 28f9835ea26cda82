//! The two kinds of line most of a Claude Code run is made of, read by a skim of the line
//! without the JSON parser: `user` lines of tool results (most of its bytes) and content
//! blocks' deltas (most of its lines with `--include-partial-messages`).
//!
//! Claude Code 2.1.x (stream-json, and the session log `axt import` reads) writes a tool's
//! output as `{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_…",
//! "type":"tool_result","content":"…","is_error":false}]},"parent_tool_use_id":null,
//! "session_id":"…","uuid":"…","timestamp":"…"}`, a session-log entry with its own members
//! around them (`parentUuid`, `sessionId`, `cwd`, `toolUseResult`, …). The parse unescaped
//! each output into its buffer, only for the writer to be handed the record's bytes again
//! ([`ToolOutput`]). [`skim`] reads such a line member by member, in any order, each output's
//! JSON taken as it is ([`Skim::writers_string`]). A delta is
//! `{"type":"stream_event","event":{"type":"content_block_delta","index":1,"delta":
//! {"type":"text_delta","text":"…"}},"session_id":"…","parent_tool_use_id":null,"uuid":"…"}`
//! (`thinking_delta`, `signature_delta`, `input_json_delta` alike): a short line whose cost
//! was the parse's and the 30-member line shape's, per line; [`skim_delta`] reads it into
//! the [`StreamEvent`] the parse would have made. [`State::skimmed`] then does with either
//! what the parse path does, and counts it as the parser counts it.
//!
//! A skim gives up (`None`; the line is then parsed as before) at anything it cannot read
//! exactly as the parse would, or that the parse path would read differently: a member the
//! record shape does not know (the input report counts those), a member the line's, event's
//! or block's shape reads that the skim does not (`subtype`, `content` beside `message`, a
//! message's `id`, `model` or `usage`, a block's `text` or `input`, a delta's `citation`), a
//! block of another type, a tool's content that is not a string escaped exactly as the
//! writer escapes it (an array of blocks, `null`, `\/`, `\u00e9`), a member twice, an
//! escaped key, type or id, a `\u` surrogate in a delta's text, and what simd-json refuses
//! ([`Skim::simd`]; the line is UTF-8-checked whole first). What it accepts, the parser
//! accepts, with the same run ([`tests`] holds the two readings to each other over every
//! Claude fixture, and over every variation above).
//!
//! [`State::skimmed`]: super::State

use std::borrow::Cow;

use crate::model::{Block, ContentBlock, Fidelity, Role, ToolOutput};
use crate::normalize::framing::Record;
use crate::normalize::json::{Borrowed, JsonParser};
use crate::normalize::messages_api::{Canonical, Delta, StreamEvent};
use crate::normalize::report::Fate;
use crate::normalize::skim::{Skim, once};
use crate::normalize::{Diagnostic, Item, Output, Source};

use super::State;
use super::wire::{known_field, known_user_field};

/// What every line says of itself that [`State::line`](super::State) reads before its type:
/// its session, date and scope.
#[derive(Default)]
struct Envelope<'a> {
    session_id: Option<&'a str>,
    log_session_id: Option<&'a str>,
    /// `parentUuid` is there (any value): a session-log entry.
    parent_uuid: bool,
    timestamp: Option<&'a str>,
    agent: Option<&'a str>,
    uuid: Option<&'a str>,
    /// Which of the members above were read (a second is serde's `duplicate field`).
    seen: [bool; 6],
}

impl<'a> Envelope<'a> {
    /// The member `key`, when it is one of the envelope's: `Some` of whether it was read.
    fn member(&mut self, key: &str, skim: &mut Skim<'a>) -> Option<Option<()>> {
        let (member, slot) = match key {
            "session_id" => (0, &mut self.session_id),
            "sessionId" => (1, &mut self.log_session_id),
            "parent_tool_use_id" => (2, &mut self.agent),
            "uuid" => (3, &mut self.uuid),
            "timestamp" => (4, &mut self.timestamp),
            "parentUuid" => {
                if std::mem::replace(&mut self.seen[5], true) {
                    return Some(None);
                }
                self.parent_uuid = true;
                return Some(skim.skip());
            }
            // The line shape's members no skim reads: the parse reads them.
            "subtype"
            | "timestamp_ms"
            | "model_call_id"
            | "model"
            | "claude_code_version"
            | "is_error"
            | "result"
            | "duration_ms"
            | "num_turns"
            | "total_cost_usd"
            | "usage"
            | "stop_reason"
            | "terminal_reason"
            | "errors"
            | "api_error_status"
            | "error"
            | "role"
            | "content"
            | "success"
            | "supersedes" => return Some(None),
            _ => return None,
        };
        if std::mem::replace(&mut self.seen[member], true) {
            return Some(None);
        }
        // A timestamp that is no string (Unix milliseconds) is the parse's.
        Some(skim.str_or_null().map(|read| *slot = read))
    }
}

/// A `user` line of tool results, as [`skim`] read it.
pub(super) struct UserLine<'a> {
    envelope: Envelope<'a>,
    results: Vec<ToolResult<'a>>,
}

/// One `tool_result` block.
struct ToolResult<'a> {
    tool_use_id: Option<&'a str>,
    /// The content's JSON, quotes included: the writer's escaping of it.
    content: &'a [u8],
    is_error: Option<bool>,
}

/// The `user` line of tool results `bytes` holds (see the module docs); `None` when it is
/// none this reading takes.
pub(super) fn skim(bytes: &[u8]) -> Option<UserLine<'_>> {
    if !(bytes.starts_with(b"{\"type\":\"user\"") || bytes.starts_with(b"{\"parentUuid\"")) {
        return None;
    }
    let mut results = Vec::new();
    let mut message = false;
    let envelope = envelope_line(bytes, "user", |skim, key| match key {
        "message" => {
            (!std::mem::replace(&mut message, true)).then_some(())?;
            self::message(skim, bytes, &mut results)
        }
        "event" => None,
        key if known_field(key) || known_user_field(key) => skim.skip(),
        _ => None,
    })?;
    message.then_some(UserLine { envelope, results })
}

/// The envelope of the line `bytes` whose `type` is `kind`: the members every line shares,
/// read here, and the line's own, read by `member` (`None` from it, or at anything else:
/// the line is none this reading takes). The line is checked as UTF-8 whole, once: every
/// piece taken from it is cut at an ASCII byte.
fn envelope_line<'a>(
    bytes: &'a [u8],
    kind: &str,
    mut member: impl FnMut(&mut Skim<'a>, &'a str) -> Option<()>,
) -> Option<Envelope<'a>> {
    let text = simdutf8::basic::from_utf8(bytes).ok()?;
    let mut envelope = Envelope::default();
    let mut typed = None;
    let mut skim = Skim::simd(text);
    skim.object(|skim, key| {
        if let Some(read) = envelope.member(key, skim) {
            return read;
        }
        match key {
            "type" => once(
                &mut typed,
                skim.str_or_null()?.filter(|typed| *typed == kind)?,
            ),
            key => member(skim, key),
        }
    })?;
    skim.end()?;
    typed?;
    Some(envelope)
}

/// A `message` of tool results: `role` and a `content` array of them.
fn message<'a>(
    skim: &mut Skim<'a>,
    bytes: &'a [u8],
    results: &mut Vec<ToolResult<'a>>,
) -> Option<()> {
    let (mut role, mut content) = (false, false);
    skim.object(|skim, key| match key {
        "role" => {
            (!std::mem::replace(&mut role, true)).then_some(())?;
            skim.str_or_null().map(drop)
        }
        "content" => {
            (!std::mem::replace(&mut content, true)).then_some(())?;
            (skim.peek()? == b'[').then_some(())?;
            skim.array(|skim| {
                results.push(tool_result(skim, bytes)?);
                Some(())
            })
        }
        // The message shape's other members.
        "id" | "model" | "usage" => None,
        _ => skim.skip(),
    })
}

/// A `tool_result` block whose content is a string as the writer escapes it.
fn tool_result<'a>(skim: &mut Skim<'a>, bytes: &'a [u8]) -> Option<ToolResult<'a>> {
    let mut kind = None;
    let (mut tool_use_id, mut id_seen) = (None, false);
    let mut content = None;
    let (mut is_error, mut error_seen) = (None, false);
    skim.object(|skim, key| match key {
        "type" => once(
            &mut kind,
            skim.str_or_null()?.filter(|kind| *kind == "tool_result")?,
        ),
        "tool_use_id" => {
            (!std::mem::replace(&mut id_seen, true)).then_some(())?;
            tool_use_id = skim.str_or_null()?;
            Some(())
        }
        "content" => once(&mut content, &bytes[skim.writers_string()?]),
        "is_error" => {
            (!std::mem::replace(&mut error_seen, true)).then_some(())?;
            is_error = skim.bool_or_null()?;
            Some(())
        }
        // The block shape's other members.
        "text" | "thinking" | "signature" | "data" | "id" | "name" | "input" | "citations"
        | "server_name" => None,
        _ => skim.skip(),
    })?;
    kind?;
    Some(ToolResult {
        tool_use_id,
        content: content?,
        is_error,
    })
}

/// A `content_block_delta` stream event, as [`skim_delta`] read it.
pub(super) struct DeltaLine<'a> {
    envelope: Envelope<'a>,
    index: u64,
    delta: Delta<'a>,
}

/// The `content_block_delta` line `bytes` holds (most lines of a partial-messages stream:
/// `{"type":"stream_event","event":{"type":"content_block_delta","index":1,"delta":
/// {"type":"text_delta","text":"…"}},"session_id":"…","parent_tool_use_id":null,
/// "uuid":"…"}`), its text unescaped as simd-json does (borrowed when it has no escape);
/// `None` when it is none this reading takes (see the module docs; a delta's `citation` or
/// `stop_reason` is the parse's too).
pub(super) fn skim_delta(bytes: &[u8]) -> Option<DeltaLine<'_>> {
    if !bytes.starts_with(b"{\"type\":\"stream_event\"") {
        return None;
    }
    let mut event = None;
    let envelope = envelope_line(bytes, "stream_event", |skim, key| match key {
        "event" => once(&mut event, delta_event(skim)?),
        "message" => None,
        key if known_field(key) || key == "ttft_ms" => skim.skip(),
        _ => None,
    })?;
    let (index, delta) = event?;
    Some(DeltaLine {
        envelope,
        index,
        delta,
    })
}

/// A `content_block_delta` event: its index and delta.
fn delta_event<'a>(skim: &mut Skim<'a>) -> Option<(u64, Delta<'a>)> {
    let (mut kind, mut index, mut delta) = (None, None, None);
    skim.object(|skim, key| match key {
        "type" => once(
            &mut kind,
            skim.str_or_null()?
                .filter(|kind| *kind == "content_block_delta")?,
        ),
        "index" => once(&mut index, skim.small_u64()?),
        "delta" => once(&mut delta, self::delta(skim)?),
        // The event shape's other members.
        "message" | "content_block" | "usage" | "error" => None,
        _ => skim.skip(),
    })?;
    kind?;
    Some((index?, delta?))
}

/// A delta: its type and the one text it carries.
fn delta<'a>(skim: &mut Skim<'a>) -> Option<Delta<'a>> {
    let mut delta = Delta {
        kind: None,
        text: None,
        thinking: None,
        signature: None,
        partial_json: None,
        citation: None,
        stop_reason: None,
    };
    let mut seen = [false; 5];
    skim.object(|skim, key| {
        let (member, slot) = match key {
            "type" => (0, &mut delta.kind),
            "text" => (1, &mut delta.text),
            "thinking" => (2, &mut delta.thinking),
            "signature" => (3, &mut delta.signature),
            "partial_json" => (4, &mut delta.partial_json),
            // The delta shape's other members.
            "citation" | "stop_reason" => return None,
            _ => return skim.skip(),
        };
        if std::mem::replace(&mut seen[member], true) {
            return None;
        }
        *slot = skim.text_or_null()?.map(Borrowed);
        Some(())
    })?;
    Some(delta)
}

impl State {
    /// Whether `record` is a line a skim reads (a `user` line of tool results, [`skim`], or
    /// a content block's delta, [`skim_delta`]): then taken as [`State::line`] takes it, and
    /// counted as the parser counts it.
    pub(super) fn skimmed(
        &mut self,
        parser: &mut JsonParser,
        record: Record<'_>,
        out: &mut Output,
    ) -> bool {
        #[cfg(test)]
        if tests::PARSE_ONLY.get() {
            return false;
        }
        let Output { items, diagnostics } = out;
        if let Some(line) = skim(record.bytes) {
            let slot = parser.tally.see(("user", None));
            let agent = self.envelope(&line.envelope, items, diagnostics);
            self.skimmed_user(line, agent, record, items, diagnostics);
            parser.tally.fate(slot, Fate::Mapped);
            return true;
        }
        if let Some(line) = skim_delta(record.bytes) {
            let slot = parser
                .tally
                .see(("stream_event", Some("content_block_delta")));
            let agent = self.envelope(&line.envelope, items, diagnostics);
            let event = StreamEvent {
                kind: Cow::Borrowed("content_block_delta"),
                index: Some(line.index),
                message: None,
                content_block: None,
                delta: Some(line.delta),
                usage: None,
                error: None,
            };
            self.stream_event(Some(Box::new(event)), agent, record, items, diagnostics);
            parser.tally.fate(slot, Fate::Mapped);
            return true;
        }
        false
    }

    /// What [`State::line`](super::State) does with every line before its type: the run's
    /// session and time, the family's open text flushed. The line's scope.
    fn envelope(
        &mut self,
        envelope: &Envelope<'_>,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Option<String> {
        if self.meta.session_id.is_none()
            && let Some(session) = envelope.session_id.or(envelope.log_session_id)
        {
            self.meta.session_id = Some(session.to_owned());
        }
        if (envelope.parent_uuid || envelope.log_session_id.is_some())
            && let Some(time) = envelope.timestamp
        {
            self.meta.saw_time(time);
        }
        let agent = envelope.agent.map(str::to_owned);
        self.flush_family(items, diagnostics);
        agent
    }

    /// A skimmed `user` line of tool results, as [`State::user`](super::State) takes one.
    fn skimmed_user(
        &mut self,
        line: UserLine<'_>,
        agent: Option<String>,
        record: Record<'_>,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        if let Some(uuid) = line.envelope.uuid {
            let tool_ids = (line.results.iter()).filter_map(|result| result.tool_use_id);
            (self.recent).remember(uuid, record.line, None, tool_ids);
        }
        let source = Source::record(record.line, record.offset);
        for result in line.results {
            let block = tool_result_block(
                result.tool_use_id.unwrap_or_default().to_owned(),
                ToolOutput::escaped(result.content),
                result.is_error,
            );
            self.deliver(block, Role::User, &None, &agent, source, items, diagnostics);
        }
    }
}

/// A `tool_result` block in canonical form, read by the parse or by the skim.
pub(super) fn tool_result_block(
    tool_id: String,
    tool_content: ToolOutput,
    is_error: Option<bool>,
) -> Canonical {
    let block = Block::ToolResult {
        tool_id,
        tool_content,
        is_error: is_error.unwrap_or(false),
        exit_code: None,
    };
    Canonical {
        kind: String::new(),
        identity: None,
        blocks: vec![ContentBlock::new(Fidelity::AgentEmitted, block)],
        print: None,
        unknown: None,
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;
    use std::path::Path;

    use super::{skim, skim_delta};
    use crate::normalize::{Normalized, Options, Provider, normalize_lossy};

    thread_local! {
        /// Every line parsed, none skimmed: the reading the skim is held to.
        pub(super) static PARSE_ONLY: Cell<bool> = const { Cell::new(false) };
    }

    fn normalized(input: &[u8], parse_only: bool) -> Normalized {
        PARSE_ONLY.set(parse_only);
        let normalized = normalize_lossy(Provider::Claude, input, Options::default());
        PARSE_ONLY.set(false);
        normalized
    }

    /// The two readings of `input` are the same run, item by item, diagnostic by diagnostic,
    /// the input report included; each tool output written as the same bytes. The number of
    /// lines the skim took.
    fn same_both_ways(input: &[u8], name: &str) -> usize {
        let skimmed = normalized(input, false);
        let parsed = normalized(input, true);
        assert_eq!(skimmed, parsed, "{name}");
        for (one, other) in skimmed.items.iter().zip(&parsed.items) {
            let json = |item: &crate::normalize::Item| serde_json::to_string(&item.block).unwrap();
            assert_eq!(json(one), json(other), "{name}");
        }
        input
            .split(|&b| b == b'\n')
            .filter(|line| skim(line).is_some() || skim_delta(line).is_some())
            .count()
    }

    fn jsonl_files(dir: &Path, files: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                jsonl_files(&path, files);
            } else if path.extension().is_some_and(|e| e == "jsonl") {
                files.push(path);
            }
        }
    }

    /// Every Claude fixture, stream-json and session logs, reads the same with the skim as
    /// parsed; the skim takes most of their tool-result lines.
    #[test]
    fn every_claude_fixture_reads_the_same_skimmed_and_parsed() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
        let mut files = Vec::new();
        jsonl_files(&root.join("normalize/claude"), &mut files);
        jsonl_files(&root.join("import/claude-code"), &mut files);
        assert!(files.len() > 80, "{}", files.len());
        let mut taken = 0;
        for file in &files {
            let input = std::fs::read(file).unwrap();
            taken += same_both_ways(&input, &file.display().to_string());
        }
        assert!(taken > 50, "{taken}");
    }

    const CALL: &str = r#"{"type":"assistant","message":{"id":"msg_1","role":"assistant","model":"claude-sonnet-4-6","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls"}}]},"parent_tool_use_id":null,"session_id":"s","uuid":"a1"}"#;
    const RESULT: &str = r#"{"type":"result","subtype":"success","is_error":false,"result":"done","session_id":"s"}"#;

    fn run(user: &str) -> String {
        format!("{CALL}\n{user}\n{RESULT}\n")
    }

    /// The shapes Claude Code writes are taken; every variation the skim does not read
    /// exactly is given up to the parse. Both ways, the same run.
    #[test]
    fn a_tool_result_line_is_skimmed_only_as_the_parse_reads_it() {
        let user = |block: &str, after: &str| {
            format!(
                r#"{{"type":"user","message":{{"role":"user","content":[{block}]}},"parent_tool_use_id":null,"session_id":"s","uuid":"u1","timestamp":"2026-06-25T10:33:19.904Z"{after}}}"#
            )
        };
        let block = |content: &str| {
            format!(
                r#"{{"tool_use_id":"toolu_1","type":"tool_result","content":{content},"is_error":false}}"#
            )
        };
        let plain = block(r#""out \"put\"\n\t\\ é \u001b[0m""#);
        let entry = format!(
            r#"{{"parentUuid":"a1","isSidechain":false,"userType":"external","cwd":"/w","sessionId":"s2","version":"2.1.178","gitBranch":"main","type":"user","message":{{"role":"user","content":[{plain}]}},"uuid":"u1","timestamp":"2026-06-25T10:33:19.904Z","toolUseResult":{{"stdout":"x\u001by","stderr":"","interrupted":false,"n":-12.5,"ok":[true,null]}}}}"#
        );
        let taken = [
            user(&plain, ""),
            user(
                &plain,
                r#","tool_use_result":{"type":"text","file":{"numLines":7}}"#,
            ),
            user(&format!("{plain},{}", block(r#""two""#)), ""),
            user(&block(r#""""#), ""),
            user(&block(r#""x""#).replace(r#","is_error":false"#, ""), ""),
            user(&block(r#""x""#).replace("false", "null"), ""),
            user(&block(r#""x""#).replace(r#""toolu_1""#, "null"), ""),
            user("", ""),
            user(&plain, "").replace(
                r#""parent_tool_use_id":null"#,
                r#""parent_tool_use_id":"toolu_0""#,
            ),
            user(&plain, "").replace(
                r#""role":"user","#,
                r#""role":"user","extra":[1,{"a":"b"}],"#,
            ),
            user(
                &plain.replace(
                    r#""is_error""#,
                    r#""cache_control":{"type":"ephemeral"},"is_error""#,
                ),
                "",
            ),
            entry.clone(),
            entry.replace(r#""parentUuid":"a1","#, r#""parentUuid":null,"#),
            entry.replace(r#""sessionId":"s2","#, ""),
            entry.replace(
                r#""timestamp":"2026-06-25T10:33:19.904Z""#,
                r#""timestamp":null"#,
            ),
        ];
        let given_up = [
            user(&block(r#""a \/ slash""#), ""),
            user(&block(r#""\u00e9""#), ""),
            user(&block(r#""\u001B""#), ""),
            user(&block(r#"[{"type":"text","text":"x"}]"#), ""),
            user(&block("null"), ""),
            user(&block("12"), ""),
            user(&block(r#""x""#).replace(r#","content":"x""#, ""), ""),
            user(&block(r#""x""#).replace("tool_result", "text"), ""),
            user(&block(r#""x""#).replace(r#""type":"tool_result","#, ""), ""),
            user(
                &block(r#""x""#).replace(r#""type":"tool_result""#, r#""type":"tool_\u0072esult""#),
                "",
            ),
            user(
                &block(r#""x""#).replace(r#""toolu_1""#, r#""toolu_\u0031""#),
                "",
            ),
            user(&format!(r#"{{"type":"text","text":"hi"}},{plain}"#), ""),
            user(
                &block(r#""x""#)
                    .replace(r#""is_error":false"#, r#""is_error":false,"is_error":true"#),
                "",
            ),
            user(
                &block(r#""x""#).replace(r#""is_error":false"#, r#""is_error":"no""#),
                "",
            ),
            user(
                &block(r#""x""#).replace(r#""is_error":false"#, r#""name":"Bash""#),
                "",
            ),
            user(&plain, r#","unknown_member":1"#),
            user(&plain, r#","subtype":"x""#),
            user(&plain, r#","is_error":true"#),
            user(&plain, r#","uuid":"u2""#),
            user(&plain, r#","toolUseResult":{"n":1e400}"#),
            user(&plain, r#","toolUseResult":{"n":1e4}"#),
            user(
                &plain,
                r#","toolUseResult":{"n":123456789012345678901234567890}"#,
            ),
            user(&plain, r#","toolUseResult":{"s":"\ud800"}"#),
            user(&plain, r#","toolUseResult":{"s":"\ud83d\ude00"}"#),
            user(&plain, r#","toolUseResult":{"s":"tab	inside"}"#),
            user(&plain, r#","toolUseResult":{"a":[1,]}"#),
            user(&plain, "").replace(r#""role":"user","#, r#""role":"user","id":"msg_u","#),
            user(&plain, "").replace(r#""role":"user","#, r#""role":"user","role":"user","#),
            user(&plain, "").replace(r#""content":["#, r#""content":"text","x":["#),
            user(&plain, "").replace(r#""type":"user""#, r#""type":"assistant""#),
            user(&plain, "").replace(r#""type":"user""#, r#""type":"user","type":"user""#),
            user(&plain, "").replace(r#"{"type":"user","#, r#"{ "type":"user","#),
            user(&plain, "").replace(r#""session_id":"s""#, r#""session_id":"s\u0073""#),
            user(&plain, "").replace(r#""timestamp":"2026"#, r#""timestamp":1782"#),
            format!("{} x", user(&plain, "")),
            user(&plain, "").replacen('}', "", 1),
            entry.replace(
                r#""parentUuid":"a1","#,
                r#""parentUuid":"a1","parentUuid":"a1","#,
            ),
            entry.replace(r#""sessionId":"s2","#, r#""sessionId":7,"#),
        ];
        for line in &taken {
            assert!(skim(line.as_bytes()).is_some(), "{line}");
            assert_eq!(same_both_ways(run(line).as_bytes(), line), 1, "{line}");
        }
        for line in &given_up {
            assert!(skim(line.as_bytes()).is_none(), "{line}");
            same_both_ways(run(line).as_bytes(), line);
        }
        // Invalid UTF-8 inside an output: given up whole.
        let mut bytes = user(&plain, "").into_bytes();
        let at = bytes.iter().position(|&b| b == b'\\').unwrap();
        bytes.insert(at, 0xff);
        assert!(skim(&bytes).is_none());
    }

    /// A content block's deltas in every form Claude Code writes are taken, each escape at
    /// several places; every variation the skim does not read exactly is given up. Both
    /// ways, the same run.
    #[test]
    fn a_delta_line_is_skimmed_only_as_the_parse_reads_it() {
        let event = |event: &str| {
            format!(
                r#"{{"type":"stream_event","event":{event},"session_id":"s","parent_tool_use_id":null,"uuid":"e1"}}"#
            )
        };
        let delta = |index: &str, delta: &str| {
            event(&format!(
                r#"{{"type":"content_block_delta","index":{index},"delta":{delta}}}"#
            ))
        };
        let text = |text: &str| delta("0", &format!(r#"{{"type":"text_delta","text":"{text}"}}"#));
        let stream = |deltas: &[String]| {
            let mut lines = vec![
                event(
                    r#"{"type":"message_start","message":{"id":"msg_1","role":"assistant","model":"claude-sonnet-4-6","content":[],"usage":{"input_tokens":3,"output_tokens":1}}}"#,
                ),
                event(
                    r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
                ),
                event(
                    r#"{"type":"content_block_start","index":1,"content_block":{"type":"thinking","thinking":"","signature":""}}"#,
                ),
                event(
                    r#"{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_1","name":"Bash","input":{}}}"#,
                ),
            ];
            lines.extend(deltas.iter().cloned());
            for index in 0..3 {
                lines.push(event(&format!(
                    r#"{{"type":"content_block_stop","index":{index}}}"#
                )));
            }
            lines.push(event(r#"{"type":"message_stop"}"#));
            lines.push(RESULT.to_owned());
            lines.join("\n") + "\n"
        };
        let mut taken = vec![
            text("plain"),
            text(""),
            delta(
                "1",
                r#"{"type":"thinking_delta","thinking":"hmm \"so\"\n"}"#,
            ),
            delta(
                "1",
                r#"{"type":"signature_delta","signature":"EqQBCkYIBxgC"}"#,
            ),
            delta(
                "2",
                r#"{"type":"input_json_delta","partial_json":"{\"command\": \"ls\"}"}"#,
            ),
            delta("0", r#"{"text":"type after","type":"text_delta"}"#),
            delta("0", r#"{"type":null,"text":"no type"}"#),
            delta("0", r#"{"type":"text_delta","text":null}"#),
            delta("0", r#"{"type":"text_delta","text":"x","extra":[1]}"#),
            delta(
                "9",
                r#"{"type":"text_delta","text":"a block not streaming"}"#,
            ),
            text("x").replace(
                r#""parent_tool_use_id":null"#,
                r#""parent_tool_use_id":"toolu_0""#,
            ),
            text("x").replace(r#","uuid":"e1""#, r#","ttft_ms":12,"uuid":"e1""#),
            text("x").replace(r#""index":0,"#, r#""index":0,"extra":{"a":[]},"#),
            text("x").replace(r#"{"type":"stream_event","#, r#"{"type":"stream_event" , "#),
        ];
        for piece in [
            r#"\""#,
            r#"\\"#,
            r#"\/"#,
            r#"\b"#,
            r#"\f"#,
            r#"\n"#,
            r#"\r"#,
            r#"\t"#,
            r#"\u00e9"#,
            r#"\u001b"#,
            "é",
            "日本",
        ] {
            for pad in [0, 3, 7, 8, 15] {
                taken.push(text(&format!(
                    "{}{piece}{}",
                    "x".repeat(pad),
                    "y".repeat(pad % 5)
                )));
            }
        }
        let given_up = [
            text(r#"\ud83d\ude00"#),
            text(r#"\ud800"#),
            text(r#"\x"#),
            text("tab\there"),
            delta("0", r#"{"type":"text_delta","text":"a","text":"b"}"#),
            delta("0", r#"{"type":"text_delta","text":7}"#),
            delta("0", r#"{"type":"citations_delta","citation":{"type":"x"}}"#),
            delta("0", r#"{"type":"text_delta","stop_reason":"end_turn"}"#),
            delta("-1", r#"{"type":"text_delta","text":"x"}"#),
            delta("1.0", r#"{"type":"text_delta","text":"x"}"#),
            delta("1e0", r#"{"type":"text_delta","text":"x"}"#),
            delta("null", r#"{"type":"text_delta","text":"x"}"#),
            delta(
                "123456789012345678901",
                r#"{"type":"text_delta","text":"x"}"#,
            ),
            delta("0", "null"),
            event(r#"{"type":"content_block_delta","delta":{"type":"text_delta","text":"x"}}"#),
            event(r#"{"type":"content_block_delta","index":0}"#),
            event(
                r#"{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":5}}"#,
            ),
            event(
                r#"{"type":"content_block_delta","index":0,"index":0,"delta":{"type":"text_delta","text":"x"}}"#,
            ),
            event(
                r#"{"type":"content_block_delta","index":0,"usage":{},"delta":{"type":"text_delta","text":"x"}}"#,
            ),
            text("x").replace(
                r#""type":"stream_event","#,
                r#""type":"stream_event","event":null,"#,
            ),
            text("x").replace(r#","uuid":"e1""#, r#","unknown_member":1"#),
            text("x").replace(r#","uuid":"e1""#, r#","subtype":"x""#),
            text("x").replace(r#","uuid":"e1""#, r#","message":{}"#),
            text("x").replace(r#""session_id":"s""#, r#""session_id":5"#),
        ];
        for line in &taken {
            assert!(skim_delta(line.as_bytes()).is_some(), "{line}");
            same_both_ways(stream(std::slice::from_ref(line)).as_bytes(), line);
        }
        let all = same_both_ways(stream(&taken).as_bytes(), "all deltas");
        assert_eq!(all, taken.len());
        for line in &given_up {
            assert!(skim_delta(line.as_bytes()).is_none(), "{line}");
            same_both_ways(stream(std::slice::from_ref(line)).as_bytes(), line);
        }
    }
}
