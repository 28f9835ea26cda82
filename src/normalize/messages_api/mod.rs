//! The Messages API's content, read once for every dialect that carries it: Anthropic's own
//! API (bodies and SSE streams, as Anthropic, Vertex AI and Bedrock serve them) and Claude
//! Code, whose lines wrap its messages and, with partial messages, its stream events.
//!
//! * `wire.rs`: the record shapes (a message, a content block, a stream event and its delta,
//!   usage) and the stop reasons normalized.
//! * `blocks.rs`: a content block in canonical form: text (with its citations), thinking
//!   (with its signature), redacted thinking (its data as the signature), tool calls
//!   (client, server and MCP connector tools, a shell call's command), and the results
//!   server tools report inside the message (web search and fetch, code execution, MCP),
//!   failed when their content is an `*_error` or a code execution's return code is not 0.
//! * `print.rs`: a block's fingerprint, a hash of its wire form, for an adapter that
//!   compares a block with a later copy of it (Claude Code's two channels).
//! * `stream.rs`: a block assembled from `content_block_start`, its deltas and its
//!   `content_block_stop`, and [`Assembly`], a message's blocks by index while they stream.
//!
//! This folder owns the Messages API's vocabulary and its block assembly. It must not know
//! how a dialect wraps them (Claude Code's lines, SSE events, request bodies) nor keep a run's
//! state: the adapters do.

mod blocks;
mod print;
mod stream;
mod wire;

pub(crate) use blocks::{Canonical, canonical, hand_out, made, tool_blocks};
pub(crate) use stream::{Assembly, Closed, OpenBlock, close_block};
pub(crate) use wire::{
    Delta, Message, MessageContent, MessageUsage, RawBlock, StreamEvent, stop_kind,
};
