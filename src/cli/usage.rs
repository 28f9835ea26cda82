//! `axt usage`: what an agent's own store says its sessions spent, read straight from the
//! store (no transcript written), sessions on every core.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{self, BufWriter, Write};
use std::num::NonZeroUsize;
use std::path::PathBuf;

use clap::builder::{PossibleValuesParser, TypedValueParser};
use serde::Serialize;

use crate::batch;
use crate::import::{Env, Found, Store};
use crate::model::Usage;
use crate::read::Prices;
use crate::usage::{self, SessionUsage, UsageError};

use super::console::{self, Problem};
use super::{Outcome, prices, with_path};

/// Tokens and cost per session, day or model, read from an agent's own store.
///
/// Reads only the usage records of STORE's sessions (under PATH, or in the store's own
/// locations, as `axt import` finds them), and counts them as `axt import` followed by `axt
/// stats` would: each API call once (Claude Code: a message once per message id, from its
/// last snapshot, sub-agents included; Codex: each thread's running total once, a fork's
/// inherited history left to its parent; Copilot CLI: the session's shutdown totals per model,
/// a resumed session's running total once, sub-agents included (without a shutdown, the
/// per-call or per-message counts); Gemini CLI, Qwen Code: a message rewritten as it
/// grows once, from its last version; OpenCode: each assistant message's steps, every session
/// of the tree its task calls spawned). Tokens of a branch the conversation left (a rewound
/// Claude Code reply, a Gemini CLI message taken back by a rewind) were spent but are no
/// run's: they are shown apart, as off-chain. Cost is what the store reported where it did
/// (OpenCode), else estimated from the price table `axt stats` uses, per model; `-` where no
/// model the table knows is named. Input is uncached input; cache reads and writes
/// follow. Sessions are read in parallel on all cores (--jobs; the output is the same
/// whatever their number). Lines that cannot be read go to stderr as FILE:LINE: byte
/// OFFSET: KIND: MESSAGE.
///
/// Stores read: every store `axt import` reads.
///
/// Prices: the table axt ships (data/prices.json), with a user's own laid over it, model by
/// model: the file AXT_PRICES names, else $XDG_CONFIG_HOME/axt/prices.json.
///
/// Exit status: 0 clean, 1 lines that could not be read or no session found, 2 usage error
/// or a store that cannot be read.
///
/// Example: axt usage claude-code --by day
#[derive(clap::Args)]
pub(crate) struct Args {
    /// The store to read.
    #[arg(value_parser = store_parser())]
    store: Store,
    /// Session files or directories of the store's; its own locations when omitted.
    paths: Vec<PathBuf>,
    /// One row per session, day (of the time each call was written, UTC as the store
    /// writes it) or model.
    #[arg(long, value_enum, default_value_t = By::Session)]
    by: By,
    /// One JSON object per line: the rows, then the total (`"total": true`).
    #[arg(long)]
    json: bool,
    /// Worker threads [default: one per core].
    #[arg(long, value_name = "N")]
    jobs: Option<NonZeroUsize>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum By {
    Session,
    Day,
    Model,
}

/// The stores' names ([`Store::ALL`], read back by `Store::from_str`).
fn store_parser() -> impl TypedValueParser<Value = Store> {
    PossibleValuesParser::new(Store::ALL.map(Store::as_str)).try_map(|name: String| name.parse())
}

/// Tokens and what they cost, for one row.
#[derive(Clone, Debug, Default)]
struct Sum {
    tokens: Usage,
    off_chain: Usage,
    /// The known part of the cost.
    usd: f64,
    /// Some tokens were of a model the price table does not know (or of none named).
    unpriced: bool,
    priced: bool,
    models: Vec<String>,
    sessions: u64,
    first: Option<String>,
    last: Option<String>,
}

impl Sum {
    /// A part's tokens, priced as its store `reported` them, else by the table.
    fn add_part(&mut self, model: &str, tokens: &Usage, reported: Option<f64>, prices: &Prices) {
        self.tokens.add(tokens);
        let priced = reported.or_else(|| {
            let (_, price) = prices.lookup(model).filter(|_| !model.is_empty())?;
            Some(price.cost(tokens))
        });
        match priced {
            Some(usd) => {
                self.usd += usd;
                self.priced = true;
            }
            None if *tokens != Usage::default() => self.unpriced = true,
            None => {}
        }
        if !model.is_empty() && !self.models.iter().any(|m| m == model) {
            self.models.push(model.to_owned());
        }
    }

    fn merge(&mut self, other: &Sum) {
        self.tokens.add(&other.tokens);
        self.off_chain.add(&other.off_chain);
        self.usd += other.usd;
        self.unpriced |= other.unpriced;
        self.priced |= other.priced;
        for model in &other.models {
            if !self.models.contains(model) {
                self.models.push(model.clone());
            }
        }
        self.sessions += other.sessions;
        self.span(other.first.as_deref(), other.last.as_deref());
    }

    fn span(&mut self, first: Option<&str>, last: Option<&str>) {
        if let Some(first) = first
            && self.first.as_deref().is_none_or(|f| first < f)
        {
            self.first = Some(first.to_owned());
        }
        if let Some(last) = last
            && self.last.as_deref().is_none_or(|l| last > l)
        {
            self.last = Some(last.to_owned());
        }
    }

    fn cost(&self) -> Option<f64> {
        self.priced.then_some(self.usd)
    }

    fn cost_label(&self) -> String {
        // Cents, and four places below a cent, so that a small session is not `$0.00`.
        let dollars = |usd: f64| match usd {
            usd if usd > 0.0 && usd < 0.01 => format!("${usd:.4}"),
            usd => format!("${usd:.2}"),
        };
        match (self.cost(), self.unpriced) {
            (None, _) => "-".to_owned(),
            (Some(usd), false) => dollars(usd),
            (Some(usd), true) => format!("{} + unknown", dollars(usd)),
        }
    }
}

/// One row as `--json` prints it.
#[derive(Serialize)]
struct JsonRow<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    session: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    agent: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    day: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    model: Option<&'a str>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    total: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    sessions: Option<u64>,
    first: Option<&'a str>,
    last: Option<&'a str>,
    models: &'a [String],
    input_tokens: u64,
    output_tokens: u64,
    cache_read_tokens: u64,
    cache_write_tokens: u64,
    reasoning_tokens: u64,
    /// The known part of the cost; `null` when no part is known.
    cost_usd: Option<f64>,
    /// Some tokens were of a model the price table does not know.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    cost_unknown: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    off_chain: Option<Tokens>,
}

#[derive(Serialize)]
struct Tokens {
    input_tokens: u64,
    output_tokens: u64,
    cache_read_tokens: u64,
    cache_write_tokens: u64,
}

/// What one row is named by.
#[derive(Default)]
struct Name<'a> {
    session: Option<&'a str>,
    agent: Option<&'a str>,
    day: Option<&'a str>,
    model: Option<&'a str>,
    total: bool,
}

const HEADER: [&str; 7] = [
    "input",
    "output",
    "cache-read",
    "cache-write",
    "reasoning",
    "cost",
    "models",
];

pub(crate) fn run(args: Args) -> io::Result<Outcome> {
    console::set_json(args.json);
    let mut outcome = Outcome::Clean;
    let mut sessions: Vec<Found> = Vec::new();
    let roots = match args.paths.is_empty() {
        true => {
            let env = Env::from_process();
            (args.store.roots(&env).into_iter())
                .filter(|r| r.exists())
                .collect()
        }
        false => args.paths.clone(),
    };
    for root in &roots {
        match args.store.discover(root) {
            Ok(found) => sessions.extend(found),
            Err(error) => {
                console::unreadable(&root.display().to_string(), &with_path(root, error));
                outcome = outcome.worse(Outcome::Failed);
            }
        }
    }
    if sessions.is_empty() {
        let place = match roots.is_empty() {
            true => format!("in {}'s own locations", args.store.agent_name()),
            false => "there".to_owned(),
        };
        console::error(&format!(
            "no {} session {place}; nothing counted",
            args.store.agent_name()
        ));
        return Ok(outcome.worse(Outcome::InputProblems));
    }
    let prices = prices();
    let workers = batch::workers(args.jobs.map_or(0, NonZeroUsize::get), sessions.len());
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let mut total = Sum::default();
    let mut groups: BTreeMap<String, Sum> = BTreeMap::new();
    let mut written: io::Result<()> = Ok(());
    if !args.json {
        let first = match args.by {
            By::Session => "session\tagent\tfirst\tlast",
            By::Day => "day\tsessions",
            By::Model => "model\tsessions",
        };
        written = writeln!(out, "{first}\t{}", HEADER.join("\t"));
    }
    batch::in_order(
        &sessions,
        workers,
        |_, found, send| send(usage::read(found)),
        |_, read: Result<SessionUsage, UsageError>| {
            let session = match read {
                Ok(session) => session,
                Err(error) => {
                    console::error(&error);
                    outcome = outcome.worse(Outcome::Failed);
                    return;
                }
            };
            for (file, diagnostic) in &session.diagnostics {
                let name = file.display().to_string();
                console::problem(&Problem {
                    file: &name,
                    line: diagnostic.line,
                    offset: diagnostic.offset,
                    kind: diagnostic.kind.as_str(),
                    severity: diagnostic.severity().into(),
                    message: &diagnostic.message,
                });
                outcome = outcome.worse(Outcome::InputProblems);
            }
            let mut sum = Sum {
                off_chain: session.off_chain,
                sessions: 1,
                ..Sum::default()
            };
            sum.span(session.first.as_deref(), session.last.as_deref());
            for ((day, model), tokens) in &session.parts {
                let reported = session.reported(day, model);
                sum.add_part(model, tokens, reported, &prices);
                let key = match args.by {
                    By::Session => continue,
                    By::Day => day.clone(),
                    By::Model => model.clone(),
                };
                let group = groups.entry(key).or_default();
                let mut part = Sum::default();
                part.add_part(model, tokens, reported, &prices);
                group.merge(&part);
            }
            if args.by != By::Session {
                // A session counted once per day and per model it spent in.
                let mut keys: Vec<&str> = (session.parts.keys())
                    .map(|(day, model)| if args.by == By::Day { &**day } else { &**model })
                    .collect();
                keys.dedup();
                keys.sort_unstable();
                keys.dedup();
                for key in keys {
                    if let Some(group) = groups.get_mut(key) {
                        group.sessions += 1;
                    }
                }
            }
            if args.by == By::Session && written.is_ok() {
                let name = Name {
                    session: Some(&session.session),
                    agent: Some(session.agent),
                    ..Name::default()
                };
                written = row(&mut out, args.json, args.by, &name, &sum);
            }
            total.merge(&sum);
        },
    );
    written?;
    for (key, group) in &groups {
        let name = match args.by {
            By::Day => Name {
                day: Some(key),
                ..Name::default()
            },
            _ => Name {
                model: Some(key),
                ..Name::default()
            },
        };
        row(&mut out, args.json, args.by, &name, group)?;
    }
    let name = Name {
        total: true,
        ..Name::default()
    };
    row(&mut out, args.json, args.by, &name, &total)?;
    out.flush()?;
    if !args.json && total.off_chain != Usage::default() && !console::quiet() {
        console::notice(&format!(
            "off-chain (rewound replies, spent but in no run): {} input, {} output, {} cache-read, {} cache-write tokens",
            total.off_chain.input_tokens,
            total.off_chain.output_tokens,
            total.off_chain.cache_read_tokens,
            total.off_chain.cache_write_tokens
        ));
    }
    Ok(outcome)
}

/// Writes one row: a tab-separated line, or a JSON object.
fn row(out: &mut impl Write, json: bool, by: By, name: &Name<'_>, sum: &Sum) -> io::Result<()> {
    let tokens = &sum.tokens;
    if json {
        let mut models = sum.models.clone();
        models.sort_unstable();
        let off = &sum.off_chain;
        let row = JsonRow {
            session: name.session,
            agent: name.agent,
            day: name.day,
            model: name.model.map(|m| if m.is_empty() { "-" } else { m }),
            total: name.total,
            sessions: (by != By::Session || name.total).then_some(sum.sessions),
            first: sum.first.as_deref(),
            last: sum.last.as_deref(),
            models: &models,
            input_tokens: tokens.input_tokens,
            output_tokens: tokens.output_tokens,
            cache_read_tokens: tokens.cache_read_tokens,
            cache_write_tokens: tokens.cache_write_tokens,
            reasoning_tokens: tokens.reasoning_tokens,
            cost_usd: sum.cost(),
            cost_unknown: sum.unpriced,
            off_chain: (*off != Usage::default()).then_some(Tokens {
                input_tokens: off.input_tokens,
                output_tokens: off.output_tokens,
                cache_read_tokens: off.cache_read_tokens,
                cache_write_tokens: off.cache_write_tokens,
            }),
        };
        serde_json::to_writer(&mut *out, &row)?;
        return writeln!(out);
    }
    let dash = |text: Option<&str>| match text {
        Some(text) if !text.is_empty() => console::escape(text).into_owned(),
        _ => "-".to_owned(),
    };
    let mut line = String::new();
    match (by, name.total) {
        (By::Session, true) => {
            let _ = write!(
                line,
                "total\t{}\t{}\t{}",
                sum.sessions,
                dash(sum.first.as_deref()),
                dash(sum.last.as_deref())
            );
        }
        (By::Session, false) => {
            let _ = write!(
                line,
                "{}\t{}\t{}\t{}",
                dash(name.session),
                dash(name.agent),
                dash(sum.first.as_deref()),
                dash(sum.last.as_deref())
            );
        }
        (_, true) => {
            let _ = write!(line, "total\t{}", sum.sessions);
        }
        (By::Day, false) => {
            let _ = write!(line, "{}\t{}", dash(name.day), sum.sessions);
        }
        (By::Model, false) => {
            let _ = write!(line, "{}\t{}", dash(name.model), sum.sessions);
        }
    }
    let mut models = sum.models.clone();
    models.sort_unstable();
    let models = match models.is_empty() {
        true => "-".to_owned(),
        false => console::escape(&models.join(",")).into_owned(),
    };
    writeln!(
        out,
        "{line}\t{}\t{}\t{}\t{}\t{}\t{}\t{models}",
        tokens.input_tokens,
        tokens.output_tokens,
        tokens.cache_read_tokens,
        tokens.cache_write_tokens,
        tokens.reasoning_tokens,
        sum.cost_label()
    )
}
