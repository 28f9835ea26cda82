//! `agx cat`: decode a transcript and write it back through the strict encoder.

use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::path::PathBuf;

use agx::model::{decode_event, encode_event, warnings};

use super::{Outcome, display_name, open};

/// Decode a transcript and write it back out through the strict encoder.
///
/// Every line is decoded tolerantly; lines that decode and fit the vocabulary are
/// re-encoded canonically, lines with values outside it (a newer writer's event or block
/// types) are passed through as they were, and lines that are not events are reported and
/// left out. Problems go to stderr with the line number and byte offset.
///
/// Example: agx cat corpus/transcript/ok/plain-run.jsonl
#[derive(clap::Args)]
pub(crate) struct Args {
    /// Transcript file, or `-` for stdin.
    #[arg(default_value = "-")]
    file: PathBuf,
}

pub(crate) fn run(args: Args) -> io::Result<Outcome> {
    let name = display_name(&args.file);
    let mut input = BufReader::with_capacity(1 << 20, open(&args.file)?);
    let mut out = BufWriter::with_capacity(1 << 20, io::stdout().lock());
    let (mut line, mut encoded) = (Vec::new(), Vec::new());
    let (mut number, mut offset, mut problems) = (0u64, 0u64, false);
    loop {
        line.clear();
        let read = input.read_until(b'\n', &mut line)?;
        if read == 0 {
            break;
        }
        number += 1;
        let start = offset;
        offset += read as u64;
        let terminated = line.last() == Some(&b'\n');
        let text = line.strip_suffix(b"\n").unwrap_or(&line);
        let text = text.strip_suffix(b"\r").unwrap_or(text);
        if text.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let event = match decode_event(text) {
            Ok(event) => event,
            Err(error) => {
                problems = true;
                let torn = if !terminated && error.is_eof() {
                    " (torn final line)"
                } else {
                    ""
                };
                eprintln!("{name}:{number}: byte {start}: {error}{torn}");
                continue;
            }
        };
        let found = warnings(&event);
        for warning in &found {
            problems = true;
            eprintln!(
                "{name}:{number}: byte {start}: {}: {warning}",
                warning.kind()
            );
        }
        encoded.clear();
        match encode_event(&event, &mut encoded) {
            Ok(()) => out.write_all(&encoded)?,
            Err(error) => {
                if found.is_empty() {
                    problems = true;
                    eprintln!("{name}:{number}: byte {start}: not canonical: {error}");
                }
                out.write_all(text)?;
            }
        }
        out.write_all(b"\n")?;
    }
    out.flush()?;
    Ok(if problems {
        Outcome::InputProblems
    } else {
        Outcome::Clean
    })
}
