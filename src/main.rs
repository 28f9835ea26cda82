//! The `agx` command line: a thin layer over the library.
//!
//! Exit codes: 0 when everything was clean; 1 when input problems were found and reported on
//! stderr (the valid data around them is still written); 2 for usage and I/O errors. A
//! closed stdout (`agx ... | head`) ends the command quietly with 0.

#![allow(clippy::print_stderr)]

use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use agx::model::{decode_event, encode_event, warnings};
use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "agx",
    version,
    about = "Canonical transcripts for AI coding agents"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Decode a transcript and write it back out through the strict encoder.
    ///
    /// Every line is decoded tolerantly; lines that decode and fit the vocabulary are
    /// re-encoded canonically, lines with values outside it (a newer writer's event or block
    /// types) are passed through as they were, and lines that are not events are reported and
    /// left out. Problems go to stderr with the line number and byte offset.
    ///
    /// Example: agx cat corpus/transcript/ok/plain-run.jsonl
    Cat {
        /// Transcript file, or `-` for stdin.
        #[arg(default_value = "-")]
        file: PathBuf,
    },
}

/// Problems in the input were reported: exit 1.
struct InputProblems;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let outcome = match cli.command {
        Command::Cat { file } => cat(&file),
    };
    match outcome {
        Ok(None) => ExitCode::SUCCESS,
        Ok(Some(InputProblems)) => ExitCode::from(1),
        Err(error) if error.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("agx: {error}");
            ExitCode::from(2)
        }
    }
}

fn open(path: &PathBuf) -> io::Result<Box<dyn BufRead>> {
    if path.as_os_str() == "-" {
        return Ok(Box::new(io::stdin().lock()));
    }
    let file = File::open(path)
        .map_err(|error| io::Error::new(error.kind(), format!("{}: {error}", path.display())))?;
    Ok(Box::new(BufReader::with_capacity(1 << 20, file)))
}

fn cat(path: &PathBuf) -> io::Result<Option<InputProblems>> {
    let name = path.display().to_string();
    let mut input = open(path)?;
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
    Ok(problems.then_some(InputProblems))
}
