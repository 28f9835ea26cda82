//! `axt proxy` end to end: the real binary between a client and a stand-in upstream on
//! loopback that replays corpus fixtures (whole, slowly, in small chunks, cut off), and the
//! real `openai` and `anthropic` Python SDKs pointed at it by their base URL.
//!
//! What every test holds the proxy to: the client gets the upstream's bytes unchanged and as
//! they come; each exchange is a run whose transcript is what `axt normalize` makes of the
//! run's raw file, and that raw file is the request body then the upstream's bytes; no
//! credential sent in a header is in any file written; an exchange that does not end
//! cleanly is a failed run with every line whole.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::{TempDir, normalize_corpus, root};

/// Credentials the clients send; none may be written.
const OPENAI_KEY: &str = "sk-proj-PROXYTESTopenai0123456789abcdef";
const ANTHROPIC_KEY: &str = "sk-ant-api03-PROXYTESTanthropic0123456789";
const GOOGLE_KEY: &str = "AIzaPROXYTESTgoogle0123456789abcdefgh";
const AWS_SIGNATURE: &str = "Signature=PROXYTESTaws0123456789abcdef";

/// How the stand-in upstream answers one request.
#[derive(Clone)]
struct Reply {
    content_type: &'static str,
    body: Vec<u8>,
    /// `None`: with Content-Length, at once; `Some(n)`: chunked, `n` bytes a chunk.
    chunk: Option<usize>,
    /// The pause before each chunk.
    pause: Duration,
    /// Close the connection after this many body bytes, with no end.
    cut_after: Option<usize>,
    status: u16,
}

impl Reply {
    fn whole(content_type: &'static str, body: Vec<u8>) -> Reply {
        Reply {
            content_type,
            body,
            chunk: None,
            pause: Duration::ZERO,
            cut_after: None,
            status: 200,
        }
    }

    fn chunked(content_type: &'static str, body: Vec<u8>, chunk: usize, pause: Duration) -> Reply {
        Reply {
            chunk: Some(chunk),
            pause,
            ..Reply::whole(content_type, body)
        }
    }
}

/// A request as the stand-in upstream received it.
#[derive(Clone, Debug)]
struct Received {
    target: String,
    headers: BTreeMap<String, String>,
    body: Vec<u8>,
}

type Script = Arc<dyn Fn(&Received) -> Reply + Send + Sync>;

/// An upstream API on loopback that answers each request by its script.
struct StandIn {
    port: u16,
    received: Arc<Mutex<Vec<Received>>>,
}

impl StandIn {
    fn start(script: impl Fn(&Received) -> Reply + Send + Sync + 'static) -> StandIn {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let received = Arc::new(Mutex::new(Vec::new()));
        let script: Script = Arc::new(script);
        let log = Arc::clone(&received);
        thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { return };
                let (script, log) = (Arc::clone(&script), Arc::clone(&log));
                thread::spawn(move || {
                    let _ = answer(stream, &script, &log);
                });
            }
        });
        StandIn { port, received }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    fn received(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }
}

/// Serves one connection's requests (keep-alive) by the script.
fn answer(stream: TcpStream, script: &Script, log: &Mutex<Vec<Received>>) -> std::io::Result<()> {
    stream.set_nodelay(true)?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut writer = stream;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 {
            return Ok(());
        }
        let target = line.split(' ').nth(1).unwrap_or_default().to_owned();
        let mut headers = BTreeMap::new();
        loop {
            let mut line = String::new();
            reader.read_line(&mut line)?;
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            let (name, value) = line.split_once(':').unwrap();
            headers.insert(name.to_ascii_lowercase(), value.trim().to_owned());
        }
        let length: usize = headers
            .get("content-length")
            .map_or(0, |length| length.parse().unwrap());
        let mut body = vec![0; length];
        reader.read_exact(&mut body)?;
        let request = Received {
            target,
            headers,
            body,
        };
        let reply = script(&request);
        log.lock().unwrap().push(request);
        let reason = if reply.status == 200 { "OK" } else { "Error" };
        let mut head = format!(
            "HTTP/1.1 {} {reason}\r\ncontent-type: {}\r\n",
            reply.status, reply.content_type
        );
        match reply.chunk {
            None => head.push_str(&format!("content-length: {}\r\n\r\n", reply.body.len())),
            Some(_) => head.push_str("transfer-encoding: chunked\r\n\r\n"),
        }
        writer.write_all(head.as_bytes())?;
        let body = match reply.cut_after {
            Some(cut) => &reply.body[..cut],
            None => &reply.body[..],
        };
        match reply.chunk {
            None => writer.write_all(body)?,
            Some(size) => {
                for piece in body.chunks(size) {
                    thread::sleep(reply.pause);
                    writer.write_all(format!("{:x}\r\n", piece.len()).as_bytes())?;
                    writer.write_all(piece)?;
                    writer.write_all(b"\r\n")?;
                    writer.flush()?;
                }
                if reply.cut_after.is_none() {
                    writer.write_all(b"0\r\n\r\n")?;
                }
            }
        }
        writer.flush()?;
        if reply.cut_after.is_some() {
            return Ok(());
        }
    }
}

/// The `axt proxy` process, its address read from the line it prints.
struct Proxy {
    child: Child,
    addr: String,
    out: PathBuf,
    stderr: Arc<Mutex<String>>,
}

impl Proxy {
    fn start(upstream: &str, out: &Path, extra: &[&str]) -> Proxy {
        let mut child = Command::new(env!("CARGO_BIN_EXE_axt"))
            .args([
                "proxy",
                "--listen",
                "127.0.0.1:0",
                "--upstream",
                upstream,
                "--out",
            ])
            .arg(out)
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let addr = line
            .trim()
            .strip_prefix("listening on http://")
            .unwrap_or_else(|| panic!("{line:?}"))
            .to_owned();
        let stderr = Arc::new(Mutex::new(String::new()));
        let mut pipe = child.stderr.take().unwrap();
        let sink = Arc::clone(&stderr);
        thread::spawn(move || {
            let mut text = String::new();
            let _ = pipe.read_to_string(&mut text);
            sink.lock().unwrap().push_str(&text);
        });
        Proxy {
            child,
            addr,
            out: out.to_owned(),
            stderr,
        }
    }

    /// Stops it with SIGTERM, as a user would, and returns its exit status and stderr.
    fn stop(mut self) -> (Option<i32>, String) {
        let pid = self.child.id().to_string();
        assert!(
            Command::new("kill")
                .args(["-TERM", &pid])
                .status()
                .unwrap()
                .success()
        );
        let status = self.child.wait().unwrap();
        thread::sleep(Duration::from_millis(50));
        let stderr = self.stderr.lock().unwrap().clone();
        (status.code(), stderr)
    }

    /// The runs written so far: run id -> transcript lines.
    fn runs(&self) -> BTreeMap<String, Vec<Value>> {
        let mut runs = BTreeMap::new();
        for entry in std::fs::read_dir(&self.out).unwrap() {
            let path = entry.unwrap().path();
            if path
                .extension()
                .is_some_and(|extension| extension == "jsonl")
            {
                let run_id = path.file_stem().unwrap().to_str().unwrap().to_owned();
                runs.insert(run_id, lines(&std::fs::read(&path).unwrap()));
            }
        }
        runs
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Every line of a transcript, each whole JSON.
fn lines(bytes: &[u8]) -> Vec<Value> {
    assert!(
        bytes.is_empty() || bytes.ends_with(b"\n"),
        "a torn last line"
    );
    bytes
        .split(|byte| *byte == b'\n')
        .filter(|line| !line.is_empty())
        .map(|line| serde_json::from_slice(line).unwrap())
        .collect()
}

/// A response as a raw HTTP client saw it: status, headers, the body decoded, when each
/// piece of it arrived, and whether it ended as its framing says.
struct Got {
    status: u16,
    headers: BTreeMap<String, String>,
    body: Vec<u8>,
    arrivals: Vec<(Instant, usize)>,
    complete: bool,
}

/// Sends one request over a fresh connection and reads the whole answer.
fn request(addr: &str, target: &str, headers: &[(&str, &str)], body: &[u8]) -> Got {
    request_reading(addr, target, headers, body, usize::MAX)
}

/// As [`request`], closing the connection once `stop_after` body bytes arrived.
fn request_reading(
    addr: &str,
    target: &str,
    headers: &[(&str, &str)],
    body: &[u8],
    stop_after: usize,
) -> Got {
    let stream = TcpStream::connect(addr).unwrap();
    let mut writer = stream.try_clone().unwrap();
    let mut head = format!(
        "POST {target} HTTP/1.1\r\nhost: {addr}\r\ncontent-length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    writer.write_all(head.as_bytes()).unwrap();
    writer.write_all(body).unwrap();
    let mut reader = BufReader::new(stream);
    let mut status_line = String::new();
    reader.read_line(&mut status_line).unwrap();
    let status = status_line.split(' ').nth(1).unwrap().parse().unwrap();
    let mut headers = BTreeMap::new();
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        let (name, value) = line.split_once(':').unwrap();
        headers.insert(name.to_ascii_lowercase(), value.trim().to_owned());
    }
    let mut got = Got {
        status,
        headers,
        body: Vec::new(),
        arrivals: Vec::new(),
        complete: false,
    };
    if got.headers.get("transfer-encoding").map(String::as_str) == Some("chunked") {
        loop {
            let mut size = String::new();
            if reader.read_line(&mut size).unwrap_or(0) == 0 {
                return got;
            }
            let size = usize::from_str_radix(size.trim(), 16).unwrap();
            if size == 0 {
                let _ = reader.read_line(&mut String::new());
                got.complete = true;
                return got;
            }
            let mut piece = vec![0; size + 2];
            if reader.read_exact(&mut piece).is_err() {
                return got;
            }
            got.arrivals.push((Instant::now(), size));
            got.body.extend_from_slice(&piece[..size]);
            if got.body.len() >= stop_after {
                return got;
            }
        }
    }
    let length: usize = got.headers["content-length"].parse().unwrap();
    let mut body = vec![0; length];
    got.complete = reader.read_exact(&mut body).is_ok();
    got.arrivals.push((Instant::now(), length));
    got.body = body;
    got
}

/// The transcript's events as two recordings of the same bytes share them: no times, no
/// run id, no durations, and none of the proxy's own passthrough records.
fn comparable(events: &[Value]) -> Vec<Value> {
    events
        .iter()
        .map(|event| {
            let mut event = event.clone();
            let object = event.as_object_mut().unwrap();
            object.remove("timestamp");
            object.remove("run_id");
            if let Some(payload) = object.get_mut("payload").and_then(Value::as_object_mut) {
                payload.remove("duration_ms");
                if let Some(kept) = payload
                    .get_mut("result")
                    .and_then(|result| result.get_mut("passthrough"))
                    .and_then(Value::as_array_mut)
                {
                    kept.retain(|record| !record["kind"].as_str().unwrap().starts_with("proxy/"));
                    if kept.is_empty() {
                        payload["result"]
                            .as_object_mut()
                            .unwrap()
                            .remove("passthrough");
                    }
                }
            }
            event
        })
        .collect()
}

/// What `axt normalize -p PROVIDER` makes of a run's raw file.
fn normalized(raw: &Path, provider: &str) -> Vec<Value> {
    let output = Command::new(env!("CARGO_BIN_EXE_axt"))
        .args(["normalize", "-p", provider])
        .arg(raw)
        .output()
        .unwrap();
    lines(&output.stdout)
}

/// Asserts that the run's transcript is what `axt normalize` makes of its raw file, that
/// the raw file is `request` as one line then `answer`, and returns the run's
/// `run.completed` payload.
fn assert_run(proxy: &Proxy, run_id: &str, provider: &str, request: &[u8], answer: &[u8]) -> Value {
    let raw = proxy.out.join(format!("{run_id}.raw"));
    let mut expected = request.to_vec();
    expected.push(b'\n');
    expected.extend_from_slice(answer);
    assert_eq!(
        std::fs::read(&raw).unwrap(),
        expected,
        "{run_id}: the raw file"
    );
    let events = proxy.runs().remove(run_id).unwrap();
    assert_eq!(
        comparable(&events),
        comparable(&normalized(&raw, provider)),
        "{run_id}: the transcript is not what axt normalize makes of its raw file"
    );
    let last = events.last().unwrap();
    assert_eq!(last["type"], "run.completed");
    last["payload"].clone()
}

/// No credential of the clients' in any file of `dir`.
fn assert_no_credential(dir: &Path) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
        for secret in [
            OPENAI_KEY,
            ANTHROPIC_KEY,
            GOOGLE_KEY,
            AWS_SIGNATURE,
            "PROXYTEST",
        ] {
            assert!(!text.contains(secret), "{} holds {secret}", path.display());
        }
    }
}

fn fixture(provider: &str, name: &str) -> Vec<u8> {
    std::fs::read(normalize_corpus(provider).join(name)).unwrap()
}

/// One exchange of the main test: the API, its request, the fixture the upstream replays.
struct Case {
    provider: &'static str,
    target: &'static str,
    headers: Vec<(&'static str, String)>,
    request: &'static str,
    reply: Reply,
}

fn cases() -> Vec<Case> {
    let sse = "text/event-stream";
    let json = "application/json";
    let slow = Duration::from_millis(2);
    let openai_auth = vec![("authorization", format!("Bearer {OPENAI_KEY}"))];
    let anthropic_auth = vec![("x-api-key", ANTHROPIC_KEY.to_owned())];
    let google_auth = vec![("x-goog-api-key", GOOGLE_KEY.to_owned())];
    let aws_auth = vec![
        (
            "authorization",
            format!(
                "AWS4-HMAC-SHA256 Credential=AKIA/20261126/us-east-1/bedrock/aws4_request, SignedHeaders=host, {AWS_SIGNATURE}"
            ),
        ),
        ("x-amz-security-token", "PROXYTESTsessiontoken".to_owned()),
    ];
    vec![
        Case {
            provider: "openai",
            target: "/v1/chat/completions",
            headers: openai_auth.clone(),
            request: r#"{"model":"gpt-4.1","stream":true,"messages":[{"role":"user","content":"Run both."}]}"#,
            reply: Reply::chunked(
                sse,
                fixture("openai", "ok/parallel-tool-calls-interleaved-by-index.sse"),
                7,
                slow,
            ),
        },
        Case {
            provider: "openai",
            target: "/v1/responses",
            headers: openai_auth,
            request: r#"{"model":"gpt-5","stream":true,"input":"Look it up."}"#,
            reply: Reply::chunked(
                sse,
                fixture(
                    "openai",
                    "ok/responses-stream-reasoning-text-function-call.sse",
                ),
                64,
                slow,
            ),
        },
        Case {
            provider: "anthropic",
            target: "/v1/messages",
            headers: anthropic_auth.clone(),
            request: r#"{"model":"claude-sonnet-4-5","max_tokens":1024,"stream":true,"messages":[{"role":"user","content":"Add and multiply."}]}"#,
            reply: Reply::chunked(
                sse,
                fixture("anthropic", "ok/stream-text-and-parallel-tool-calls.sse"),
                1,
                Duration::ZERO,
            ),
        },
        Case {
            provider: "anthropic",
            // The Anthropic SDK's beta calls add a query.
            target: "/v1/messages?beta=true",
            headers: anthropic_auth,
            request: r#"{"model":"claude-sonnet-4-5","max_tokens":1024,"messages":[{"role":"user","content":"Hello"}]}"#,
            reply: Reply::whole(json, fixture("anthropic", "ok/body-text-and-tool-use.json")),
        },
        Case {
            provider: "gemini-api",
            target: "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
            headers: google_auth.clone(),
            request: r#"{"contents":[{"role":"user","parts":[{"text":"Which files?"}]}]}"#,
            reply: Reply::chunked(
                sse,
                fixture(
                    "gemini-api",
                    "ok/sse-parallel-function-calls-in-one-chunk.sse",
                ),
                50,
                slow,
            ),
        },
        Case {
            provider: "gemini-api",
            // The key in the query, as some clients send it: never written either.
            target: "/v1beta/models/gemini-2.5-flash:streamGenerateContent?key=AIzaPROXYTESTgoogle0123456789abcdefgh",
            headers: Vec::new(),
            request: r#"{"contents":[{"role":"user","parts":[{"text":"What changed?"}]}]}"#,
            reply: Reply::chunked(
                json,
                fixture("gemini-api", "ok/array-stream-text-and-usage.json"),
                100,
                slow,
            ),
        },
        Case {
            provider: "bedrock",
            target: "/model/us.amazon.nova-pro-v1%3A0/converse-stream",
            headers: aws_auth.clone(),
            request: r#"{"messages":[{"role":"user","content":[{"text":"List the files."}]}]}"#,
            reply: Reply::chunked(
                "application/vnd.amazon.eventstream",
                fixture(
                    "bedrock",
                    "ok/converse-stream-reasoning-signature-then-tool-use.eventstream",
                ),
                33,
                slow,
            ),
        },
        Case {
            provider: "anthropic",
            target: "/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke-with-response-stream",
            headers: aws_auth,
            request: r#"{"anthropic_version":"bedrock-2023-05-31","max_tokens":512,"messages":[{"role":"user","content":"Hi"}]}"#,
            reply: Reply::chunked(
                "application/vnd.amazon.eventstream",
                fixture("anthropic", "ok/bedrock-invoke-stream-binary.eventstream"),
                40,
                slow,
            ),
        },
    ]
}

/// Every API the proxy knows, all clients at once (one thread each), streams replayed in
/// small chunks: each client gets the upstream's bytes unchanged, each exchange is a run
/// equal to `axt normalize` of its raw file, and no credential is written anywhere.
#[test]
fn proxy_records_every_api_at_once_as_normalize_reads_the_raw_bytes() {
    let by_target: BTreeMap<String, Reply> = cases()
        .into_iter()
        .map(|case| (case.target.to_owned(), case.reply))
        .collect();
    let upstream = StandIn::start(move |request| by_target[&request.target].clone());
    let out = TempDir::new("proxy-all-apis");
    let proxy = Proxy::start(&upstream.url(), out.path(), &[]);
    let clients: Vec<_> = cases()
        .into_iter()
        .map(|case| {
            let addr = proxy.addr.clone();
            thread::spawn(move || {
                let mut headers: Vec<(&str, &str)> = case
                    .headers
                    .iter()
                    .map(|(name, value)| (*name, value.as_str()))
                    .collect();
                headers.push(("content-type", "application/json"));
                let got = request(&addr, case.target, &headers, case.request.as_bytes());
                (case, got)
            })
        })
        .collect();
    let mut expected = Vec::new();
    for client in clients {
        let (case, got) = client.join().unwrap();
        assert_eq!(got.status, 200, "{}", case.target);
        assert!(got.complete, "{}", case.target);
        assert_eq!(
            got.body, case.reply.body,
            "{}: the client's bytes",
            case.target
        );
        expected.push(case);
    }
    // The upstream got every credential header (and the query) as the client sent them.
    let received = upstream.received();
    assert_eq!(received.len(), expected.len());
    for case in &expected {
        let got = received.iter().find(|r| r.target == case.target).unwrap();
        assert_eq!(got.body, case.request.as_bytes());
        for (name, value) in &case.headers {
            assert_eq!(&got.headers[*name], value, "{name} forwarded");
        }
        assert_eq!(got.headers["accept-encoding"], "identity");
    }
    let (status, stderr) = proxy_stop_after_runs(proxy, expected.len(), |proxy| {
        let runs = proxy.runs();
        for (run_id, events) in &runs {
            let completed = &events.last().unwrap()["payload"];
            let exchange = completed["result"]["passthrough"]
                .as_array()
                .unwrap()
                .iter()
                .find(|record| record["kind"] == "proxy/exchange")
                .unwrap()["raw"]
                .clone();
            let raw = std::fs::read(proxy.out.join(format!("{run_id}.raw"))).unwrap();
            let case = expected
                .iter()
                .find(|case| raw.starts_with(case.request.as_bytes()))
                .unwrap();
            assert_eq!(exchange["path"], case.target.split('?').next().unwrap());
            assert_eq!(exchange["status"], 200);
            assert_eq!(exchange["response_bytes"], case.reply.body.len());
            assert!(
                completed.get("error").is_none(),
                "{}: {completed}",
                case.target
            );
            assert_run(
                proxy,
                run_id,
                case.provider,
                case.request.as_bytes(),
                &case.reply.body,
            );
        }
        assert_no_credential(&proxy.out);
    });
    assert_eq!(status, Some(0), "{stderr}");
    assert_eq!(
        stderr.matches(" 200 -> ").count(),
        expected.len(),
        "{stderr}"
    );
}

/// Waits until `count` runs have their `run.completed`, checks them, then stops the proxy.
fn proxy_stop_after_runs(
    proxy: Proxy,
    count: usize,
    check: impl FnOnce(&Proxy),
) -> (Option<i32>, String) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let runs = proxy.runs();
        let done = runs
            .values()
            .filter(|events| {
                events
                    .last()
                    .is_some_and(|event| event["type"] == "run.completed")
            })
            .count();
        if done >= count || Instant::now() > deadline {
            assert_eq!(done, count, "runs ended: {runs:#?}");
            break;
        }
        thread::sleep(Duration::from_millis(20));
    }
    check(&proxy);
    proxy.stop()
}

/// A slow stream (an event every 150 ms) reaches the client event by event, as the
/// upstream sends it, not once it has ended.
#[test]
fn proxy_passes_a_slow_stream_on_as_it_arrives() {
    let body = fixture("anthropic", "ok/stream-text-and-parallel-tool-calls.sse");
    let events = body.split(|b| *b == b'\n').count();
    let pause = Duration::from_millis(150);
    // One chunk per SSE event, as an API writes them.
    let chunks: Vec<Vec<u8>> = body
        .split_inclusive(|b| *b == b'\n')
        .map(<[u8]>::to_vec)
        .collect();
    let longest = chunks.iter().map(Vec::len).max().unwrap();
    let _ = events;
    let upstream =
        StandIn::start(move |_| Reply::chunked("text/event-stream", body.clone(), longest, pause));
    let out = TempDir::new("proxy-slow");
    let proxy = Proxy::start(&upstream.url(), out.path(), &[]);
    let started = Instant::now();
    let got = request(
        &proxy.addr,
        "/v1/messages",
        &[],
        br#"{"model":"m","messages":[]}"#,
    );
    let total = started.elapsed();
    assert!(got.complete);
    let first = got.arrivals.first().unwrap().0.duration_since(started);
    assert!(got.arrivals.len() > 3, "{} pieces", got.arrivals.len());
    assert!(
        first < total / 2,
        "the first piece came after {first:?} of {total:?}: the stream was held back"
    );
    // Pieces keep the upstream's pace: no two thirds of them bunched at the end.
    let spread = got.arrivals.last().unwrap().0 - got.arrivals[0].0;
    assert!(spread > pause * 2, "pieces spread over {spread:?} only");
    let _ = proxy_stop_after_runs(proxy, 1, |_| {});
}

/// The upstream closes mid-stream (mid-block): the client's answer ends without its last
/// chunk, and the run is recorded as failed, saying so, with every line whole and what
/// arrived recorded.
#[test]
fn proxy_records_an_upstream_cut_mid_stream_as_a_failed_run() {
    let body = fixture("anthropic", "ok/stream-text-and-parallel-tool-calls.sse");
    let cut = body.len() / 2;
    let upstream = StandIn::start(move |_| Reply {
        cut_after: Some(cut),
        ..Reply::chunked("text/event-stream", body.clone(), 100, Duration::ZERO)
    });
    let out = TempDir::new("proxy-upstream-cut");
    let proxy = Proxy::start(&upstream.url(), out.path(), &[]);
    let request_body =
        br#"{"model":"m","max_tokens":9,"messages":[{"role":"user","content":"go"}]}"#;
    let got = request(&proxy.addr, "/v1/messages", &[], request_body);
    assert!(!got.complete, "the client must see the answer cut too");
    assert_eq!(got.body.len(), cut);
    let _ = proxy_stop_after_runs(proxy, 1, |proxy| {
        let (run_id, events) = proxy.runs().into_iter().next().unwrap();
        let completed = &events.last().unwrap()["payload"];
        assert_eq!(completed["result"]["status"], "failed", "{completed}");
        let error = completed["error"].as_str().unwrap();
        assert!(
            error.contains(&format!(
                "the upstream's answer stopped after {cut} bytes of the body"
            )),
            "{error}"
        );
        // The text that arrived is recorded; the raw file has exactly the bytes passed on.
        let raw = std::fs::read(proxy.out.join(format!("{run_id}.raw"))).unwrap();
        assert_eq!(raw.len(), request_body.len() + 1 + cut);
        assert!(
            events
                .iter()
                .any(|event| event["type"] == "message.assistant")
        );
    });
}

/// The client goes away after the first piece of a slow stream: the run is failed, saying
/// how much had been passed on; the proxy goes on serving others.
#[test]
fn proxy_records_a_client_gone_mid_stream_as_a_failed_run() {
    let body = fixture("openai", "ok/parallel-tool-calls-interleaved-by-index.sse");
    let upstream = StandIn::start(move |_| {
        Reply::chunked(
            "text/event-stream",
            body.clone(),
            200,
            Duration::from_millis(30),
        )
    });
    let out = TempDir::new("proxy-client-gone");
    let proxy = Proxy::start(&upstream.url(), out.path(), &[]);
    let request_body = br#"{"model":"m","stream":true,"messages":[]}"#;
    let got = request_reading(&proxy.addr, "/v1/chat/completions", &[], request_body, 1);
    assert!(!got.complete);
    drop(got);
    // Another client meanwhile is served whole.
    let whole = request(&proxy.addr, "/v1/chat/completions", &[], request_body);
    assert!(whole.complete);
    let _ = proxy_stop_after_runs(proxy, 2, |proxy| {
        let failed: Vec<Value> = proxy
            .runs()
            .values()
            .map(|events| events.last().unwrap()["payload"].clone())
            .filter(|completed| completed.get("error").is_some())
            .collect();
        assert_eq!(failed.len(), 1, "{failed:#?}");
        let error = failed[0]["error"].as_str().unwrap();
        assert!(
            error.contains("the client closed the connection after ")
                && error.contains(" bytes of the answer were passed on"),
            "{error}"
        );
    });
}

/// An Anthropic conversation through the proxy: the second request sends back the results
/// of the calls the first answer made; its run names the run that made each call.
#[test]
fn proxy_links_tool_results_sent_back_to_the_run_that_made_the_calls() {
    let first_answer = fixture("anthropic", "ok/stream-text-and-parallel-tool-calls.sse");
    let second_answer = fixture("anthropic", "ok/body-text-and-tool-use.json");
    let upstream = StandIn::start(move |request| {
        if String::from_utf8_lossy(&request.body).contains("tool_result") {
            Reply::whole("application/json", second_answer.clone())
        } else {
            Reply::chunked(
                "text/event-stream",
                first_answer.clone(),
                500,
                Duration::ZERO,
            )
        }
    });
    let out = TempDir::new("proxy-links");
    let proxy = Proxy::start(&upstream.url(), out.path(), &[]);
    let first = br#"{"model":"m","max_tokens":99,"stream":true,"messages":[{"role":"user","content":"What is 2+3 and 4*5?"}]}"#;
    assert!(request(&proxy.addr, "/v1/messages", &[], first).complete);
    let second = r#"{"model":"m","max_tokens":99,"messages":[{"role":"user","content":"What is 2+3 and 4*5?"},{"role":"assistant","content":[{"type":"tool_use","id":"toolu_01Ga8Lm3Xv6Qw2Ze9Kr5Tn1Y","name":"add","input":{"a":2,"b":3}},{"type":"tool_use","id":"toolu_01Pd6Vh1Mc9Rb4Wx7Sj2Kz5Q","name":"multiply","input":{"a":4,"b":5}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01Ga8Lm3Xv6Qw2Ze9Kr5Tn1Y","content":"5"},{"type":"tool_result","tool_use_id":"toolu_01Pd6Vh1Mc9Rb4Wx7Sj2Kz5Q","content":"20"}]}]}"#;
    // The first run must be written before the second request, as a client would wait.
    let deadline = Instant::now() + Duration::from_secs(10);
    while proxy
        .runs()
        .values()
        .all(|e| e.last().is_none_or(|e| e["type"] != "run.completed"))
    {
        assert!(Instant::now() < deadline);
        thread::sleep(Duration::from_millis(10));
    }
    let first_run = proxy.runs().into_keys().next().unwrap();
    assert!(request(&proxy.addr, "/v1/messages", &[], second.as_bytes()).complete);
    let _ = proxy_stop_after_runs(proxy, 2, |proxy| {
        let runs = proxy.runs();
        let (second_run, events) = runs.iter().find(|(id, _)| **id != first_run).unwrap();
        let completed = &events.last().unwrap()["payload"];
        let continues = completed["result"]["passthrough"]
            .as_array()
            .unwrap()
            .iter()
            .find(|record| record["kind"] == "proxy/continues")
            .unwrap_or_else(|| panic!("{completed}"))["raw"]
            .clone();
        assert_eq!(
            continues,
            serde_json::json!({
                "conversation": first_run,
                "tool_results": [
                    {"call_id": "toolu_01Ga8Lm3Xv6Qw2Ze9Kr5Tn1Y", "run_id": first_run},
                    {"call_id": "toolu_01Pd6Vh1Mc9Rb4Wx7Sj2Kz5Q", "run_id": first_run},
                ],
            })
        );
        // Within the run, the results pair with the calls of the history it was sent.
        assert_run(
            proxy,
            second_run,
            "anthropic",
            second.as_bytes(),
            &fixture("anthropic", "ok/body-text-and-tool-use.json"),
        );
        let first_completed = &runs[&first_run].last().unwrap()["payload"];
        assert!(!first_completed.to_string().contains("proxy/continues"));
    });
}

/// An error status from the upstream goes back to the client as it is, and fails the run
/// with the status; `--redact` masks a credential pasted into a prompt in every file.
#[test]
fn proxy_records_an_error_status_and_redacts_bodies() {
    let error = fixture("anthropic", "ok/overloaded-error-body.json");
    let upstream = StandIn::start(move |_| Reply {
        status: 529,
        ..Reply::whole("application/json", error.clone())
    });
    let out = TempDir::new("proxy-error-redact");
    let proxy = Proxy::start(&upstream.url(), out.path(), &["--redact"]);
    let pasted = "ghp_PROXYTESTpastedtoken0123456789abcdefABCD";
    let body = format!(
        r#"{{"model":"m","max_tokens":9,"messages":[{{"role":"user","content":"use {pasted}"}}]}}"#
    );
    let got = request(
        &proxy.addr,
        "/v1/messages",
        &[("x-api-key", ANTHROPIC_KEY)],
        body.as_bytes(),
    );
    assert_eq!(got.status, 529);
    assert_eq!(
        got.body,
        fixture("anthropic", "ok/overloaded-error-body.json")
    );
    let _ = proxy_stop_after_runs(proxy, 1, |proxy| {
        let (_, events) = proxy.runs().into_iter().next().unwrap();
        let completed = &events.last().unwrap()["payload"];
        assert_eq!(completed["result"]["status"], "failed");
        assert!(
            completed["error"]
                .as_str()
                .unwrap()
                .contains("the upstream answered with HTTP status 529"),
            "{completed}"
        );
        assert_no_credential(&proxy.out);
    });
}

/// SIGTERM while an answer is still streaming: after the grace period the run is ended as
/// failed ("axt proxy was stopped"), whole, and the proxy exits 0.
#[test]
fn proxy_stopped_mid_stream_ends_the_open_run_as_failed() {
    let body = fixture("openai", "ok/parallel-tool-calls-interleaved-by-index.sse");
    let upstream = StandIn::start(move |_| {
        Reply::chunked(
            "text/event-stream",
            body.clone(),
            100,
            Duration::from_millis(400),
        )
    });
    let out = TempDir::new("proxy-stopped");
    let proxy = Proxy::start(&upstream.url(), out.path(), &["--grace-secs", "0"]);
    let addr = proxy.addr.clone();
    let client = thread::spawn(move || {
        request(
            &addr,
            "/v1/chat/completions",
            &[],
            b"{\"model\":\"m\",\"messages\":[]}",
        )
    });
    // Until the first piece is recorded.
    let deadline = Instant::now() + Duration::from_secs(10);
    while !std::fs::read_dir(out.path()).unwrap().any(|entry| {
        let path = entry.unwrap().path();
        path.extension().is_some_and(|e| e == "raw") && std::fs::metadata(&path).unwrap().len() > 40
    }) {
        assert!(Instant::now() < deadline);
        thread::sleep(Duration::from_millis(10));
    }
    let out_dir = proxy.out.clone();
    let (status, stderr) = proxy.stop();
    assert_eq!(status, Some(0), "{stderr}");
    assert!(
        stderr.contains("stopped with 1 exchange still answering"),
        "{stderr}"
    );
    let got = client.join().unwrap();
    assert!(!got.complete);
    let transcript = std::fs::read_dir(&out_dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .find(|path| path.extension().is_some_and(|e| e == "jsonl"))
        .unwrap();
    let events = lines(&std::fs::read(transcript).unwrap());
    let completed = &events.last().unwrap()["payload"];
    assert!(
        completed["error"]
            .as_str()
            .unwrap()
            .contains("axt proxy was stopped before the upstream's answer ended"),
        "{completed}"
    );
}

/// The real `openai` and `anthropic` Python SDKs, pointed at the proxy by their base URL,
/// streaming and not: they read the answers as from the API, and each exchange's run is
/// what `axt normalize` makes of its raw file, with no key written.
#[test]
#[allow(clippy::print_stderr)]
fn proxy_serves_the_real_openai_and_anthropic_python_sdks() {
    let python = root().join("target/sdk/venv/bin/python");
    let ready = python.is_file()
        && Command::new(&python)
            .args(["-c", "import openai, anthropic"])
            .status()
            .is_ok_and(|status| status.success());
    if !ready {
        eprintln!(
            "SKIPPED proxy_serves_the_real_openai_and_anthropic_python_sdks: no SDKs at {} \
             (`.ci/run` installs them: python3 -m venv target/sdk/venv && \
             target/sdk/venv/bin/pip install openai anthropic)",
            python.display()
        );
        return;
    }
    let replies = [
        (
            "openai-stream",
            "text/event-stream",
            fixture("openai", "ok/parallel-tool-calls-interleaved-by-index.sse"),
        ),
        (
            "openai-body",
            "application/json",
            fixture(
                "openai",
                "ok/xai-grok-reasoning-tokens-beside-completion.json",
            ),
        ),
        (
            "anthropic-stream",
            "text/event-stream",
            fixture("anthropic", "ok/stream-text-and-parallel-tool-calls.sse"),
        ),
        (
            "anthropic-body",
            "application/json",
            fixture("anthropic", "ok/body-text-and-tool-use.json"),
        ),
    ];
    let table: BTreeMap<&str, (&str, Vec<u8>)> = replies
        .iter()
        .map(|(name, kind, body)| (*name, (*kind, body.clone())))
        .collect();
    let upstream = StandIn::start(move |request| {
        let stream = String::from_utf8_lossy(&request.body).contains("\"stream\":true")
            || String::from_utf8_lossy(&request.body).contains("\"stream\": true");
        let api = if request.target.contains("chat/completions") {
            "openai"
        } else {
            "anthropic"
        };
        let (kind, body) =
            &table[format!("{api}-{}", if stream { "stream" } else { "body" }).as_str()];
        if stream {
            Reply::chunked(kind, body.clone(), 64, Duration::from_millis(1))
        } else {
            Reply::whole(kind, body.clone())
        }
    });
    let out = TempDir::new("proxy-sdks");
    let proxy = Proxy::start(&upstream.url(), out.path(), &[]);
    let script = root().join("tests/axt/support/proxy-sdk-clients.py");
    let output = Command::new(&python)
        .arg(&script)
        .arg(format!("http://{}", proxy.addr))
        .env("OPENAI_API_KEY", OPENAI_KEY)
        .env("ANTHROPIC_API_KEY", ANTHROPIC_KEY)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{said}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // What each SDK read, as its own types give it.
    let said: Value = serde_json::from_str(&said).unwrap();
    assert_eq!(
        said,
        serde_json::json!({
            "openai-stream": {"tool_calls": ["get_weather", "get_weather"]},
            "openai-body": {"text_starts": "101 is prim"},
            "anthropic-stream": {"tool_uses": ["add", "multiply"]},
            "anthropic-body": {"tool_uses": ["weather"]},
        })
    );
    let received = upstream.received();
    assert_eq!(received.len(), 4);
    for request in &received {
        let auth = request
            .headers
            .get("authorization")
            .or(request.headers.get("x-api-key"));
        assert!(
            auth.is_some_and(|auth| auth.contains("PROXYTEST")),
            "{request:?}"
        );
    }
    let _ = proxy_stop_after_runs(proxy, 4, |proxy| {
        for run_id in proxy.runs().keys() {
            let raw = std::fs::read(proxy.out.join(format!("{run_id}.raw"))).unwrap();
            let line_end = raw.iter().position(|b| *b == b'\n').unwrap();
            let request = &raw[..line_end];
            let sent = received.iter().find(|r| r.body == request).unwrap();
            let provider = if sent.target.contains("chat/completions") {
                "openai"
            } else {
                "anthropic"
            };
            let completed = assert_run(proxy, run_id, provider, request, &raw[line_end + 1..]);
            assert!(completed.get("error").is_none(), "{completed}");
            let answer = &raw[line_end + 1..];
            assert!(replies.iter().any(|(_, _, body)| body == answer));
        }
        assert_no_credential(&proxy.out);
    });
}
