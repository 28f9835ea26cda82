//! `axt cat`: decode a transcript and write it back through the strict encoder.

use std::io::{self, BufWriter, Write};
use std::path::PathBuf;

use crate::model::encode_event;
use crate::read::{ProblemKind, ReadItem, Reader};

use super::console;
use super::{Outcome, display_name, open};

/// Decode a transcript and write it back out through the strict encoder.
///
/// Every line is read by the tolerant reader; events that fit the vocabulary are re-encoded
/// canonically, events the strict encoder refuses (a newer writer's event or block types)
/// are passed through as they were, and lines that are not events are left out. Every
/// problem goes to stderr as FILE:LINE: byte OFFSET: KIND: MESSAGE.
///
/// Exit status: 0 clean, 1 problems reported, 2 usage error or an input that cannot be
/// read.
///
/// Example: axt cat corpus/read/transcript/ok/plain-run.jsonl
#[derive(clap::Args)]
pub(crate) struct Args {
    /// Transcript file, or `-` for stdin.
    #[arg(default_value = "-")]
    file: PathBuf,
    /// Print problems on stderr as JSON lines.
    #[arg(long)]
    json: bool,
}

pub(crate) fn run(args: Args) -> io::Result<Outcome> {
    console::set_json(args.json);
    let name = display_name(&args.file);
    let mut reader = Reader::new(open(&args.file)?).keep_line_bytes();
    let mut out = BufWriter::with_capacity(1 << 20, io::stdout().lock());
    let mut encoded = Vec::new();
    let (mut problems, mut unreadable) = (false, false);
    while let Some(item) = reader.next() {
        match item {
            ReadItem::Problem(problem) => {
                problems = true;
                unreadable |= problem.kind == ProblemKind::Io;
                console::read_problem(&name, &problem);
            }
            ReadItem::Event { event, .. } => {
                encoded.clear();
                match encode_event(&event, &mut encoded) {
                    Ok(()) => out.write_all(&encoded)?,
                    Err(_) => {
                        // The reader reported why; keep the line as it was.
                        let raw = reader.line_bytes().unwrap_or_default();
                        out.write_all(raw.strip_suffix(b"\r").unwrap_or(raw))?;
                    }
                }
                out.write_all(b"\n")?;
            }
        }
    }
    out.flush()?;
    Ok(if unreadable {
        Outcome::Failed
    } else if problems {
        Outcome::InputProblems
    } else {
        Outcome::Clean
    })
}
