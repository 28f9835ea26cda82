//! `axt exec --otlp-endpoint`: a run's spans sent live while the agent runs, the same
//! spans (same ids) a batch export of the transcript makes; and a collector that stalls
//! costs spans, counted and reported, never the agent's time or the transcript.

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::process::Output;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::cli::{axt, text};
use crate::support::{TempDir, normalize_corpus, replay_agent};

const FIXTURE: &str = "ok/plain-session-thinking-text-bash.jsonl";

/// `axt exec -p claude --out DIR --run-id r EXTRA... -- python3 replay-agent.py FIXTURE`.
fn exec(dir: &Path, extra: &[&str]) -> Output {
    let fixture = normalize_corpus("claude").join(FIXTURE);
    let agent = replay_agent();
    let mut args = vec![
        "exec",
        "-p",
        "claude",
        "--out",
        dir.to_str().unwrap(),
        "--run-id",
        "r",
    ];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["--", "python3", &agent, fixture.to_str().unwrap()]);
    axt(&args, b"")
}

/// A collector that answers 200 to every OTLP/JSON request and keeps the bodies.
fn collector() -> (String, Arc<Mutex<Vec<Value>>>) {
    collector_answering(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}")
}

/// A collector that answers `reply` to every request and keeps the OTLP/JSON bodies.
fn collector_answering(reply: &'static [u8]) -> (String, Arc<Mutex<Vec<Value>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let bodies = Arc::new(Mutex::new(Vec::new()));
    let keep = Arc::clone(&bodies);
    std::thread::spawn(move || {
        for stream in listener.incoming().take(50) {
            let Ok(stream) = stream else { continue };
            let mut reader = BufReader::new(stream);
            let mut length = 0;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 {
                    break;
                }
                let line = line.trim_end().to_ascii_lowercase();
                if let Some(value) = line.strip_prefix("content-length:") {
                    length = value.trim().parse().unwrap_or(0);
                }
                if line.is_empty() {
                    break;
                }
            }
            let mut body = vec![0; length];
            if reader.read_exact(&mut body).is_ok()
                && let Ok(json) = serde_json::from_slice(&body)
            {
                keep.lock().unwrap().push(json);
            }
            let _ = reader.get_mut().write_all(reply);
        }
    });
    (url, bodies)
}

/// Every span id of OTLP/JSON requests, with its name.
fn span_ids(requests: &[Value]) -> BTreeSet<String> {
    requests
        .iter()
        .flat_map(|r| r["resourceSpans"].as_array().cloned().unwrap_or_default())
        .flat_map(|rs| rs["scopeSpans"].as_array().cloned().unwrap_or_default())
        .flat_map(|ss| ss["spans"].as_array().cloned().unwrap_or_default())
        .map(|span| span["spanId"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn a_live_export_sends_the_spans_a_batch_export_makes() {
    let (url, bodies) = collector();
    let dir = TempDir::new("otlp-live");
    let output = exec(
        dir.path(),
        &["--otlp-endpoint", &url, "--otlp-protocol", "http/json"],
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let live = span_ids(&bodies.lock().unwrap());
    let transcript = dir.path().join("r.jsonl");
    let batch = axt(
        &["export", "--to", "otlp", transcript.to_str().unwrap()],
        b"",
    );
    assert_eq!(batch.status.code(), Some(0), "{}", text(&batch.stderr));
    let batch: Value = serde_json::from_slice(&batch.stdout).unwrap();
    let batched = span_ids(&[batch]);
    assert!(!live.is_empty());
    // The same ids: a collector that has the live spans dedups a later batch export.
    assert_eq!(live, batched);
    assert!(
        text(&output.stderr).contains(&format!(
            "axt: otlp: {n} of {n} spans sent to {url}/v1/traces\n",
            n = live.len()
        )),
        "{}",
        text(&output.stderr)
    );
}

/// A collector that takes connections and never answers: the agent's run is recorded in
/// full, axt ends within its shutdown allowance after the agent, and every span is counted
/// as dropped on stderr.
#[test]
fn a_stalled_collector_costs_spans_not_the_agent_or_the_transcript() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let held = Arc::new(Mutex::new(Vec::new()));
    let hold = Arc::clone(&held);
    std::thread::spawn(move || {
        for stream in listener.incoming().take(20).flatten() {
            hold.lock().unwrap().push(stream); // read nothing, answer nothing
        }
    });
    let dir = TempDir::new("otlp-stalled");
    let started = Instant::now();
    let output = exec(dir.path(), &["--otlp-endpoint", &url]);
    let took = started.elapsed();
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    // Shutdown allowance 5 s, plus the agent and the build's own start.
    assert!(took < Duration::from_secs(15), "{took:?}");
    let stderr = text(&output.stderr);
    let warning = stderr
        .lines()
        .find(|l| l.starts_with("axt: warning: otlp: 0 of "))
        .unwrap_or_else(|| panic!("{stderr}"));
    let spans: u64 = warning["axt: warning: otlp: 0 of ".len()..]
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(spans > 0);
    assert!(
        warning.contains(&format!("; {spans} dropped (the collector was too slow")),
        "{warning}"
    );
    // The transcript is what normalize makes of the same output.
    let transcript = std::fs::read_to_string(dir.path().join("r.jsonl")).unwrap();
    let last: Value = serde_json::from_str(transcript.lines().last().unwrap()).unwrap();
    assert_eq!(last["type"], "run.completed");
    assert_eq!(last["payload"]["result"]["status"], "completed");
    let normalized = axt(
        &[
            "normalize",
            "--run-id",
            "r",
            normalize_corpus("claude").join(FIXTURE).to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(
        transcript.lines().count(),
        text(&normalized.stdout).lines().count()
    );
}

/// The live export's report names the collector without its password: a URL's userinfo
/// (`http://user:PASSWORD@host`) is masked in the warning a refusing collector causes, and
/// the password reaches only the collector (as the request's credentials).
#[test]
fn the_live_otlp_warning_masks_the_collectors_password() {
    let (url, _) = collector_answering(
        b"HTTP/1.1 400 Bad Request\r\nContent-Length: 3\r\nConnection: close\r\n\r\nbad",
    );
    let address = url.trim_start_matches("http://").to_owned();
    let password = "pw-0f9e8d7c6b5a";
    let url = format!("http://ann:{password}@{address}");
    let dir = TempDir::new("otlp-live-password");
    let output = exec(
        dir.path(),
        &["--otlp-endpoint", &url, "--otlp-protocol", "http/json"],
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let stderr = text(&output.stderr);
    assert!(!stderr.contains(password), "{stderr}");
    let warning = stderr
        .lines()
        .find(|l| l.starts_with("axt: warning: otlp: 0 of "))
        .unwrap_or_else(|| panic!("{stderr}"));
    assert!(
        warning.contains(&format!(
            "spans sent to http://ann:[REDACTED:url_password]@{address}/v1/traces"
        )),
        "{warning}"
    );
}

/// A URL no collector listens at: a port that was just free, connecting to it refused.
fn refused_url() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    format!("http://{}", listener.local_addr().unwrap())
}

/// Issue 23, item 14: a collector that is not there (the connection refused) used to add
/// the whole shutdown allowance to every run: the sender was waited for while it slept
/// between retries. Now the export stops waiting as soon as the collector is known to be
/// unreachable, and counts the spans it could not send. Timed against a retry 40 s later
/// and an allowance of two minutes, so that no load makes the one look like the other (a
/// comparison with a run without export, 2 s apart, failed under load).
#[test]
fn a_dead_collector_costs_no_wait_at_exit() {
    use axt::export::otlp::live::{LiveExport, LiveOptions};
    use axt::export::otlp::send::{Destination, Protocol};
    use axt::export::otlp::{RunContext, TraceId};
    use axt::record::{Recorder, RecorderOptions};
    // A run's events, recorded again with a live export subscribed.
    let dir = TempDir::new("otlp-dead");
    let output = exec(dir.path(), &[]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let lines = std::fs::read(dir.path().join("r.jsonl")).unwrap();
    let again = TempDir::new("otlp-dead-again");
    let recorder = Recorder::create(again.path(), "r", RecorderOptions::default()).unwrap();
    let mut destination =
        Destination::resolve(Some(&refused_url()), &[], Some(Protocol::HttpJson), &|_| {
            None
        })
        .unwrap();
    // Retried after 40 s: an export that waited for the sender would wait that long.
    destination.attempts = 3;
    destination.backoff = Duration::from_secs(40);
    let allowance = Duration::from_secs(120);
    let live = LiveExport::start(
        recorder.subscribe_with_capacity(1 << 16),
        RunContext::new(TraceId::of_root("r"), None),
        destination,
        LiveOptions {
            shutdown: allowance,
            ..LiveOptions::default()
        },
    );
    for line in lines.split(|&b| b == b'\n').filter(|line| !line.is_empty()) {
        recorder
            .record(axt::model::decode_event(line).unwrap())
            .unwrap();
    }
    recorder.close().unwrap();
    let started = Instant::now();
    let report = live.finish();
    let took = started.elapsed();
    assert!(
        took < Duration::from_secs(20),
        "{took:?}: the sender's retries were waited for"
    );
    assert!(report.unreachable && report.timed_out, "{report:?}");
    assert!(report.spans > 0, "{report:?}");
    assert_eq!(report.sent, 0, "{report:?}");
    assert_eq!(report.failed + report.dropped, report.spans, "{report:?}");
}

/// `axt exec` with a collector that is not there: the run is recorded, and the spans
/// not sent are said, with why.
#[test]
fn exec_with_a_dead_collector_says_the_spans_were_not_sent_and_why() {
    let dead = TempDir::new("otlp-dead-exec");
    let output = exec(dead.path(), &["--otlp-endpoint", &refused_url()]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("axt: warning: otlp: 0 of ")
            && stderr.contains(
                "not sent (the collector could not be reached: the connection was refused"
            ),
        "{stderr}"
    );
}
