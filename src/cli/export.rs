//! `axt export`: a canonical transcript out to another format.

use std::io::{self, BufWriter, Write};
use std::path::PathBuf;

use axt::export::agentlog::{ExportOptions, export};

use super::Outcome;

/// Export a run and its linked child runs as one document.
///
/// Reads FILE and every child run it links (child_run_id, in the same directory) and writes
/// one AgentLog 0.2.0 JSON document to stdout or OUT. Paths are made relative to the
/// project root: the run's recorded cwd, or --root.
///
/// Example: axt export --to agentlog transcripts/<session-id>.jsonl -o session.agentlog.json
#[derive(clap::Args)]
pub(crate) struct Args {
    /// The target format.
    #[arg(long, value_enum)]
    to: Target,
    /// Write to OUT instead of stdout.
    #[arg(long, short)]
    out: Option<PathBuf>,
    /// Mask credentials (API keys, tokens, private keys) with the recorder's redactor.
    #[arg(long)]
    redact: bool,
    /// The project root paths are made relative to, when the run does not record one.
    #[arg(long)]
    root: Option<PathBuf>,
    /// The root run's transcript file.
    file: PathBuf,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum Target {
    Agentlog,
}

pub(crate) fn run(args: Args) -> io::Result<Outcome> {
    let Target::Agentlog = args.to;
    let options = ExportOptions {
        root: args.root,
        redact: args.redact,
    };
    let document = export(&args.file, &options).map_err(io::Error::other)?;
    let mut text = serde_json::to_vec_pretty(&document)?;
    text.push(b'\n');
    match &args.out {
        Some(path) => std::fs::write(path, &text).map_err(|e| super::with_path(path, e))?,
        None => {
            let mut out = BufWriter::new(io::stdout().lock());
            out.write_all(&text)?;
            out.flush()?;
        }
    }
    let notes = document["properties"]["axt:notes"]
        .as_array()
        .map_or(0, Vec::len);
    let problems = document["properties"]["axt:readProblems"]
        .as_u64()
        .unwrap_or(0);
    Ok(if notes > 0 || problems > 0 {
        Outcome::InputProblems
    } else {
        Outcome::Clean
    })
}
