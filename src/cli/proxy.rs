//! `axt proxy`: a recording proxy for model APIs (see [`crate::capture::proxy`]).

// The doc comments below are clap's help text, where URLs are written as a user types them.
#![allow(rustdoc::bare_urls)]

use std::io::{self, Write};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use crate::capture::proxy::{Exchange, Proxy, ProxyOptions};
use crate::record::RecorderOptions;

use super::Outcome;
use super::common::{ProviderChoice, provider_or_auto_parser};
use super::console;
use super::supervise::Signals;

/// Forward HTTP to a model API and record every exchange as a run in DIR.
///
/// Point an SDK's base URL at http://ADDR (with the upstream's path prefix when it has
/// one: http://ADDR/v1 for OpenAI's SDK). Each request is sent on to URL with its path and
/// query, credentials and all; the answer is passed back as it arrives. Each exchange is
/// recorded live as DIR/<run-id>.jsonl, normalized by the adapter its path calls for
/// (OpenAI Chat Completions and Responses, Anthropic Messages, the Gemini API, Bedrock
/// Converse and InvokeModel; other POSTs detected, other methods forwarded unrecorded), the
/// request's messages and tool results first; DIR/<run-id>.raw holds the request body as
/// one line followed by the answer, byte for byte, so `axt normalize -p PROVIDER
/// <run-id>.raw` makes the same transcript. Headers (API keys, tokens, AWS signatures) and
/// the query are never written. An answer cut off, an error status, or a client gone
/// records the run as failed, saying why.
///
/// Prints `listening on http://ADDR` on stdout, then one line per exchange on stderr.
/// SIGINT, SIGTERM or SIGHUP stops it: answers still coming get --grace-secs, then their
/// runs are ended as failed.
///
/// Example: axt proxy --listen 127.0.0.1:8080 --upstream https://api.openai.com --out runs
/// (then OPENAI_BASE_URL=http://127.0.0.1:8080/v1)
#[derive(clap::Args)]
pub(crate) struct Args {
    /// The address to listen on (port 0: any free port, printed).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8080")]
    listen: SocketAddr,

    /// The upstream API's base URL, its scheme included (https://api.openai.com,
    /// https://api.anthropic.com, https://generativelanguage.googleapis.com, ...).
    #[arg(long, value_name = "URL")]
    upstream: String,

    /// Where the transcripts and raw captures go (created, mode 0700, when missing).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,

    /// The adapter for every exchange; `auto` (the default) takes it from the request's
    /// path.
    #[arg(long, short, value_parser = provider_or_auto_parser(), default_value = "auto")]
    provider: ProviderChoice,

    /// Mask credentials (API keys, tokens, private keys, passwords) in the bodies recorded:
    /// the transcript and the raw capture (headers are never recorded).
    #[arg(long)]
    redact: bool,

    /// How long a stop waits for answers still coming before it ends their runs.
    #[arg(long, default_value_t = 10, value_name = "SECS")]
    grace_secs: u64,

    /// Print the lines on stderr as JSON.
    #[arg(long)]
    json: bool,
}

pub(crate) fn run(args: Args) -> io::Result<Outcome> {
    console::set_json(args.json);
    let signals = Signals::register()?;
    let recorder = if args.redact {
        RecorderOptions::default().redact_credentials()
    } else {
        RecorderOptions::default()
    };
    let options = ProxyOptions {
        listen: args.listen,
        upstream: args.upstream,
        out: args.out,
        recorder,
        provider: match args.provider {
            ProviderChoice::Auto => None,
            ProviderChoice::Named(provider) => Some(provider),
        },
        grace: Duration::from_secs(args.grace_secs),
        on_exchange: Some(Box::new(report)),
        on_error: Some(Box::new(|message: &str| console::error(&message))),
    };
    let proxy = match Proxy::bind(options) {
        Ok(proxy) => proxy,
        Err(error) => {
            console::error(&error);
            return Ok(Outcome::Failed);
        }
    };
    let addr = proxy.local_addr()?;
    let mut stdout = io::stdout().lock();
    writeln!(stdout, "listening on http://{addr}")?;
    stdout.flush()?;
    drop(stdout);
    let flag = signals.flag();
    let ended = proxy.serve(&flag)?;
    if ended > 0 {
        console::warning(&format!(
            "stopped with {} still answering: recorded as failed",
            console::plural(ended as u64, "exchange")
        ));
    }
    Ok(Outcome::Clean)
}

/// One line per exchange: `POST /v1/messages 200 -> <run-id>.jsonl (1234 ms)`.
fn report(exchange: &Exchange) {
    let failed = if exchange.failed { ", failed" } else { "" };
    console::notice(&format!(
        "{} {} {} -> {}.jsonl ({} ms{failed})",
        exchange.method, exchange.path, exchange.status, exchange.run_id, exchange.millis
    ));
}
