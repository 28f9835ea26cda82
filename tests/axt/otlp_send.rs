//! `axt export --to otlp --endpoint`: OTLP/HTTP against a stub collector on localhost
//! (paths, headers, content types, retries, a refusal's message), and against a real
//! receiver, Arize Phoenix, started by the test itself; the spans read back from it must
//! match the transcripts (tool calls, token totals, the tree).

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axt::normalize::Provider;
use serde_json::Value;

use crate::support::{ROOT, normalize_corpus, root};

/// One request as the stub collector saw it.
#[derive(Clone, Debug)]
struct Seen {
    path: String,
    headers: HashMap<String, String>,
    body: Vec<u8>,
}

/// A collector that answers each request with the next of `answers` (status, body), then
/// 200 with an empty body, and records what it was sent. Bounded: it stops after 20
/// requests or when the test drops the listener's port.
fn stub_collector(answers: Vec<(u16, &'static str)>) -> (String, Arc<Mutex<Vec<Seen>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = Arc::clone(&seen);
    std::thread::spawn(move || {
        let mut answers = answers.into_iter();
        for stream in listener.incoming().take(20) {
            let Ok(stream) = stream else { continue };
            let (status, body) = answers.next().unwrap_or((200, ""));
            serve(stream, status, body, &record);
        }
    });
    (url, seen)
}

/// Reads one request, records it, then answers: recorded before the client can see the
/// answer, so a test that reads what was seen after the command ends finds it there.
fn serve(stream: TcpStream, status: u16, answer: &str, record: &Mutex<Vec<Seen>>) -> Option<()> {
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let path = line.split_whitespace().nth(1)?.to_owned();
    let mut headers = HashMap::new();
    loop {
        let mut header = String::new();
        reader.read_line(&mut header).ok()?;
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        let (key, value) = header.split_once(':')?;
        headers.insert(key.trim().to_ascii_lowercase(), value.trim().to_owned());
    }
    let length: usize = headers.get("content-length")?.parse().ok()?;
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    record.lock().unwrap().push(Seen {
        path,
        headers,
        body,
    });
    let reply = format!(
        "HTTP/1.1 {status} X\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{answer}",
        answer.len()
    );
    reader.get_mut().write_all(reply.as_bytes()).ok()
}

fn axt(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_axt"));
    command.args(args).current_dir(ROOT);
    for (key, _) in std::env::vars() {
        if key.starts_with("OTEL_") {
            command.env_remove(key);
        }
    }
    command.envs(env.iter().copied()).output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

const NESTED: &str = "corpus/read/transcript/ok/nested";

#[test]
fn otlp_posts_json_with_headers_and_retries_a_busy_collector() {
    let (url, seen) = stub_collector(vec![(503, "busy"), (200, "{}")]);
    let output = axt(
        &[
            "export",
            "--to",
            "otlp",
            NESTED,
            "--endpoint",
            &url,
            "--protocol",
            "http/json",
            "--header",
            "Authorization=Bearer t0k",
        ],
        &[("OTEL_EXPORTER_OTLP_HEADERS", "x-team=axt%20dev")],
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert_eq!(output.stdout, b"", "nothing on stdout when sending");
    assert_eq!(
        text(&output.stderr),
        format!("axt: sent 18 spans of 3 runs to {url}/v1/traces (1 request retried)\n")
    );
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 2, "the 503 was retried once");
    for request in &seen {
        assert_eq!(request.path, "/v1/traces");
        assert_eq!(request.headers["content-type"], "application/json");
        assert_eq!(request.headers["authorization"], "Bearer t0k");
        assert_eq!(request.headers["x-team"], "axt dev");
    }
    // The body is the same OTLP/JSON that stdout gets.
    let written = axt(&["export", "--to", "otlp", NESTED], &[]);
    let sent: Value = serde_json::from_slice(&seen[1].body).unwrap();
    let printed: Value = serde_json::from_slice(&written.stdout).unwrap();
    assert_eq!(sent, printed);
}

#[test]
fn otlp_sends_protobuf_by_default_to_the_environments_endpoint() {
    let (url, seen) = stub_collector(vec![]);
    let output = axt(
        &["export", "--to", "otlp", "--quiet", NESTED, "--endpoint"],
        &[("OTEL_EXPORTER_OTLP_ENDPOINT", &format!("{url}/base/"))],
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert_eq!(output.stderr, b"");
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen[0].path, "/base/v1/traces");
    assert_eq!(seen[0].headers["content-type"], "application/x-protobuf");
    // The root trace id, as bytes, is in the protobuf body.
    let written: Value =
        serde_json::from_slice(&axt(&["export", "--to", "otlp", NESTED], &[]).stdout).unwrap();
    let trace = written["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["traceId"]
        .as_str()
        .unwrap()
        .to_owned();
    let bytes: Vec<u8> = (0..16)
        .map(|i| u8::from_str_radix(&trace[2 * i..2 * i + 2], 16).unwrap())
        .collect();
    assert!(seen[0].body.windows(16).any(|w| w == bytes));
}

#[test]
fn otlp_a_refusing_collector_is_named_with_its_status_and_body() {
    let (url, seen) = stub_collector(vec![(400, "field traceId: invalid length")]);
    let output = axt(&["export", "--to", "otlp", NESTED, "--endpoint", &url], &[]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        text(&output.stderr),
        format!(
            "axt: the collector at {url}/v1/traces refused the spans: HTTP 400: field traceId: \
             invalid length\n"
        )
    );
    assert_eq!(seen.lock().unwrap().len(), 1, "a 400 is not retried");

    // Nobody listening: retried, then a message naming the URL.
    let closed = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let started = Instant::now();
    let output = axt(&["export", "--to", "otlp", NESTED, "--endpoint", &url], &[]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = text(&output.stderr);
    assert!(
        stderr.starts_with(&format!(
            "axt: gave up on the collector at {url}/v1/traces after 5 attempts: "
        )),
        "{stderr}"
    );
    // 0.5 + 1 + 2 + 4 s of backoff.
    assert!(started.elapsed() >= Duration::from_millis(7500));
}

/// A collector's URL with credentials in it is shown with them masked, in the notice and in
/// an error, and its password still reaches the collector.
#[test]
fn otlp_messages_mask_the_collectors_password() {
    let (url, seen) = stub_collector(vec![(400, "no")]);
    let address = url.trim_start_matches("http://");
    let with_password = format!("http://ann:pw-5e4d3c2b1a@{address}");
    let send = |endpoint: &str| {
        axt(
            &["export", "--to", "otlp", NESTED, "--endpoint", endpoint],
            &[],
        )
    };
    let output = send(&with_password);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        text(&output.stderr),
        format!(
            "axt: the collector at http://ann:[REDACTED:url_password]@{address}/v1/traces \
             refused the spans: HTTP 400: no\n"
        )
    );
    let seen = seen.lock().unwrap();
    // ureq sends the URL's userinfo as Basic credentials: "ann:pw-5e4d3c2b1a".
    assert_eq!(
        seen[0].headers.get("authorization").map(String::as_str),
        Some("Basic YW5uOnB3LTVlNGQzYzJiMWE=")
    );
    drop(seen);
    let output = send(&with_password);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(
        text(&output.stderr).contains(&format!(
            "to http://ann:[REDACTED:url_password]@{address}/v1/traces"
        )),
        "{}",
        text(&output.stderr)
    );
    let output = send("ftp://ann:pw-5e4d3c2b1a@x");
    assert_eq!(
        text(&output.stderr),
        "axt: OTLP endpoint \"ftp://ann:[REDACTED:url_password]@x/v1/traces\" is not an \
         http:// or https:// URL\n"
    );
}

#[test]
fn otlp_usage_errors() {
    for (args, message) in [
        (
            &["export", "--to", "otlp", "-"][..],
            "axt: --to otlp reads run files and directories, not stdin: give FILE or DIR\n",
        ),
        (
            &[
                "export",
                "--content",
                "corpus/read/transcript/ok/plain-run.jsonl",
            ][..],
            "axt: --content is for --to otlp and --to parquet\n",
        ),
        (
            &[
                "export",
                "--endpoint",
                "http://x",
                "corpus/read/transcript/ok/plain-run.jsonl",
            ][..],
            "axt: --endpoint, --header and --protocol are for --to otlp\n",
        ),
        (
            &["export", "--to", "otlp", NESTED, "--endpoint", "ftp://x"][..],
            "axt: OTLP endpoint \"ftp://x/v1/traces\" is not an http:// or https:// URL\n",
        ),
        (
            &[
                "export",
                "--to",
                "otlp",
                NESTED,
                "--endpoint",
                "http://x",
                "--header",
                "k",
            ][..],
            "axt: header \"k\" is not KEY=VALUE\n",
        ),
    ] {
        let output = axt(args, &[]);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert_eq!(text(&output.stderr), message, "{args:?}");
    }
}

// ---------------------------------------------------------------------------------------
// Arize Phoenix, a real OTLP receiver.

/// The virtualenv `.ci/run` installs Phoenix into (`target/phoenix/venv`), or
/// `AXT_PHOENIX_VENV`.
fn phoenix_venv() -> PathBuf {
    std::env::var_os("AXT_PHOENIX_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target/phoenix/venv"))
}

struct Phoenix {
    child: Child,
    url: String,
    _dir: crate::support::TempDir,
}

impl Drop for Phoenix {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// `phoenix serve` on free localhost ports, its data in a scratch directory; `None` (with
/// the reason printed) when Phoenix is not installed.
#[allow(clippy::print_stderr)]
fn start_phoenix() -> Option<Phoenix> {
    let bin = phoenix_venv().join("bin/phoenix");
    if !bin.is_file() {
        eprintln!(
            "SKIPPED otlp_phoenix_reads_back_the_transcript: no Phoenix at {} (`.ci/run` \
             installs it: python3 -m venv target/phoenix/venv && \
             target/phoenix/venv/bin/pip install arize-phoenix)",
            bin.display()
        );
        return None;
    }
    // Phoenix runs its migrations first: 73-78 s alone on the 2-core machine at load ~40,
    // over 120 s there among the suite's other tests. A Phoenix that exits before it answers
    // (a port another test took between `free_port` and Phoenix's bind is the one cause
    // seen) is started again on fresh ports, in a fresh directory; the log of each failed
    // start is printed.
    let started = Instant::now();
    let deadline = Duration::from_secs(600);
    for attempt in 1..=3 {
        let dir = crate::support::TempDir::new("phoenix");
        let (http, grpc) = (free_port(), free_port());
        let log = std::fs::File::create(dir.path().join("phoenix.log")).unwrap();
        let child = Command::new(&bin)
            .arg("serve")
            .env("PHOENIX_WORKING_DIR", dir.path())
            .env("PHOENIX_HOST", "127.0.0.1")
            .env("PHOENIX_PORT", http.to_string())
            .env("PHOENIX_GRPC_PORT", grpc.to_string())
            .env("PHOENIX_TELEMETRY_ENABLED", "false")
            .env("DO_NOT_TRACK", "1")
            .stdout(Stdio::from(log.try_clone().unwrap()))
            .stderr(Stdio::from(log))
            .spawn()
            .unwrap();
        let mut phoenix = Phoenix {
            child,
            url: format!("http://127.0.0.1:{http}"),
            _dir: dir,
        };
        let exited = loop {
            if get(&format!("{}/healthz", phoenix.url)).is_some_and(|(status, _)| status == 200) {
                eprintln!(
                    "Phoenix {} up in {:.1} s (start {attempt})",
                    phoenix.url,
                    started.elapsed().as_secs_f64()
                );
                return Some(phoenix);
            }
            if let Ok(Some(status)) = phoenix.child.try_wait() {
                break Some(status);
            }
            if started.elapsed() >= deadline {
                break None;
            }
            std::thread::sleep(Duration::from_millis(500));
        };
        let log =
            std::fs::read_to_string(phoenix._dir.path().join("phoenix.log")).unwrap_or_default();
        let tail = log_tail(&log, 60);
        match exited {
            Some(status) if attempt < 3 => {
                eprintln!("Phoenix exited before it answered ({status}), start {attempt}:\n{tail}");
            }
            Some(status) => {
                panic!("Phoenix exited before it answered ({status}), three starts:\n{tail}")
            }
            None => panic!(
                "Phoenix did not answer on {} in {} s:\n{tail}",
                phoenix.url,
                deadline.as_secs()
            ),
        }
    }
    unreachable!("the third start returns or panics")
}

/// The last `lines` lines of a log.
fn log_tail(log: &str, lines: usize) -> String {
    let all: Vec<&str> = log.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

/// A GET on localhost: status and body.
fn get(url: &str) -> Option<(u16, String)> {
    let rest = url.strip_prefix("http://")?;
    let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
    let mut stream = TcpStream::connect(host).ok()?;
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .ok()?;
    let request = format!("GET /{path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).ok()?;
    let mut response = Vec::new();
    stream.read_to_end(&mut response).ok()?;
    let response = String::from_utf8_lossy(&response).into_owned();
    let status = response.split_whitespace().nth(1)?.parse().ok()?;
    let (head, body) = response.split_once("\r\n\r\n")?;
    let body = if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        dechunk(body)
    } else {
        body.to_owned()
    };
    Some((status, body))
}

fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let Ok(size) = usize::from_str_radix(size.trim(), 16) else {
            break;
        };
        if size == 0 || rest.len() < size {
            break;
        }
        out.push_str(&rest[..size]);
        body = rest[size..].trim_start_matches("\r\n");
    }
    out
}

/// Every span Phoenix holds in its default project, through its REST API.
fn phoenix_spans(phoenix: &Phoenix) -> Vec<Value> {
    let url = format!("{}/v1/projects/default/spans?limit=1000", phoenix.url);
    let (status, body) = get(&url).expect("Phoenix answers");
    assert_eq!(status, 200, "{body}");
    let value: Value = serde_json::from_str(&body).unwrap();
    value["data"].as_array().cloned().unwrap_or_default()
}

#[test]
#[allow(clippy::print_stderr)]
fn otlp_phoenix_reads_back_the_transcript() {
    let Some(phoenix) = start_phoenix() else {
        return;
    };
    let started = Instant::now();
    let output = axt(
        &[
            "export",
            "--to",
            "otlp",
            "--content",
            NESTED,
            "--endpoint",
            &phoenix.url,
        ],
        &[],
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let written: Value =
        serde_json::from_slice(&axt(&["export", "--to", "otlp", "--content", NESTED], &[]).stdout)
            .unwrap();
    let expected = written["resourceSpans"][0]["scopeSpans"][0]["spans"]
        .as_array()
        .unwrap()
        .clone();
    // Phoenix ingests asynchronously: wait until every span is there.
    let mut spans = Vec::new();
    while started.elapsed() < Duration::from_secs(60) {
        spans = phoenix_spans(&phoenix);
        if spans.len() >= expected.len() {
            break;
        }
        std::thread::sleep(Duration::from_millis(500));
    }
    eprintln!(
        "Phoenix: {} spans read back in {:.1} s",
        spans.len(),
        started.elapsed().as_secs_f64()
    );
    assert_eq!(spans.len(), expected.len(), "every span arrives once");
    let attr = |span: &Value, key: &str| span["attributes"][key].clone();
    // Tool calls: 5 in the three transcripts.
    let tools = spans
        .iter()
        .filter(|s| attr(s, "gen_ai.operation.name") == "execute_tool")
        .count();
    assert_eq!(tools, 5, "tool calls");
    // Token totals: the three runs' usage, as the conventions count input.
    let total = |key: &str| -> i64 { spans.iter().filter_map(|s| attr(s, key).as_i64()).sum() };
    assert_eq!(total("gen_ai.usage.input_tokens"), 3 * 7000);
    assert_eq!(total("gen_ai.usage.output_tokens"), 3 * 340);
    // The tree: every span's parent as axt wrote it, one trace.
    let parent_of: HashMap<String, String> = expected
        .iter()
        .map(|s| {
            (
                s["spanId"].as_str().unwrap().to_owned(),
                s["parentSpanId"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect();
    for span in &spans {
        let id = span["context"]["span_id"].as_str().unwrap();
        let parent = span["parent_id"].as_str().unwrap_or("");
        assert_eq!(parent_of[id], parent, "parent of {}", span["name"]);
        assert_eq!(
            span["context"]["trace_id"], expected[0]["traceId"],
            "one trace"
        );
    }
    // Re-exporting the same runs adds nothing: the ids are the same.
    let again = axt(
        &[
            "export",
            "--to",
            "otlp",
            "--quiet",
            NESTED,
            "--endpoint",
            &phoenix.url,
        ],
        &[],
    );
    assert_eq!(again.status.code(), Some(0), "{}", text(&again.stderr));
    std::thread::sleep(Duration::from_secs(2));
    assert_eq!(
        phoenix_spans(&phoenix).len(),
        expected.len(),
        "deduplicated"
    );
    phoenix_stores_the_conventions(&phoenix, expected.len());
}

/// An OTLP/JSON attribute value as Phoenix's span API gives it back: ints as numbers, arrays
/// as lists.
fn plain_value(value: &Value) -> Value {
    if let Some(int) = value["intValue"].as_str() {
        return Value::from(int.parse::<i64>().unwrap());
    }
    if let Some(values) = value["arrayValue"]["values"].as_array() {
        return values.iter().map(plain_value).collect();
    }
    ["stringValue", "boolValue", "doubleValue"]
        .iter()
        .find_map(|k| value.get(*k).cloned())
        .unwrap_or(Value::Null)
}

/// The attributes of an OTLP/JSON span or event, by key.
fn plain_attributes(item: &Value) -> serde_json::Map<String, Value> {
    item["attributes"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|a| {
            (
                a["key"].as_str().unwrap().to_owned(),
                plain_value(&a["value"]),
            )
        })
        .collect()
}

/// The conventions followed, as a real receiver stores them: the commands of a Codex run (a
/// failed one's `process.exit.code` and `error.type`), a Claude run with a denied call (its
/// `gen_ai.tool.call.decision` event), with `EVENT_ONLY` capture (each model turn's content
/// in a `gen_ai.client.inference.operation.details` event), and the nested runs' cache
/// writes by their name since #440. Every span event axt wrote arrives with its attributes,
/// and so does every one of those span attributes.
fn phoenix_stores_the_conventions(phoenix: &Phoenix, before: usize) {
    let scratch = crate::support::TempDir::new("phoenix-conventions");
    let recorded = |provider: Provider, fixture: &str| {
        crate::golden_otlp::record(
            provider,
            &normalize_corpus(provider).join("ok").join(fixture),
            scratch.path(),
        )
        .to_str()
        .unwrap()
        .to_owned()
    };
    let codex = recorded(Provider::Codex, "commands-failed-and-declined.jsonl");
    let claude = recorded(
        Provider::Claude,
        "max-turns-dangling-tool-use-permission-denial.jsonl",
    );
    let capture = [(
        "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT",
        "EVENT_ONLY",
    )];
    let args = ["export", "--to", "otlp", &codex, &claude];
    let written: Value = serde_json::from_slice(&axt(&args, &capture).stdout).unwrap();
    let sent = axt(
        &[&args[..], &["--endpoint", phoenix.url.as_str()][..]].concat(),
        &capture,
    );
    assert_eq!(sent.status.code(), Some(0), "{}", text(&sent.stderr));
    let written: Vec<Value> = written["resourceSpans"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r["scopeSpans"].as_array().unwrap())
        .flat_map(|s| s["spans"].as_array().unwrap().clone())
        .collect();
    let started = Instant::now();
    let mut stored = Vec::new();
    while started.elapsed() < Duration::from_secs(60) {
        stored = phoenix_spans(phoenix);
        if stored.len() >= before + written.len() {
            break;
        }
        std::thread::sleep(Duration::from_millis(500));
    }
    assert_eq!(
        stored.len(),
        before + written.len(),
        "every span arrives once"
    );
    let by_id: HashMap<&str, &Value> = stored
        .iter()
        .map(|s| (s["context"]["span_id"].as_str().unwrap(), s))
        .collect();
    let keys = [
        "process.exit.code",
        "error.type",
        "gen_ai.agent.version",
        "gen_ai.response.finish_reasons",
        "gen_ai.usage.cache_write.input_tokens",
    ];
    let (mut failed_commands, mut decisions, mut details) = (0, Vec::new(), 0);
    for span in &written {
        let got = by_id[span["spanId"].as_str().unwrap()];
        let attributes = plain_attributes(span);
        for key in keys {
            if let Some(value) = attributes.get(key) {
                assert_eq!(&got["attributes"][key], value, "{key} of {}", span["name"]);
            }
        }
        if attributes
            .get("process.exit.code")
            .is_some_and(|code| code != 0)
        {
            failed_commands += 1;
        }
        let events: Vec<(Value, Value)> = span["events"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|e| (e["name"].clone(), Value::Object(plain_attributes(e))))
            .collect();
        let arrived: Vec<(Value, Value)> = got["events"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|e| (e["name"].clone(), e["attributes"].clone()))
            .collect();
        assert_eq!(arrived, events, "events of {}", span["name"]);
        for (name, attributes) in events {
            match name.as_str().unwrap() {
                "gen_ai.tool.call.decision" => decisions.push(attributes),
                "gen_ai.client.inference.operation.details" => details += 1,
                other => panic!("an event axt does not write: {other}"),
            }
        }
    }
    assert!(failed_commands > 0, "a failed command");
    assert!(details > 0, "content events");
    assert_eq!(
        decisions,
        [serde_json::json!({
            "gen_ai.tool.call.decision.outcome": "deny",
            "gen_ai.tool.call.id": "toolu_01BikWMgISuSw8P1FGNmtjwH",
            "gen_ai.tool.name": "Write",
        })]
    );
    // The nested runs sent first: their cache writes under the name #440 gives them.
    let writes: i64 = stored
        .iter()
        .filter_map(|s| s["attributes"]["gen_ai.usage.cache_write.input_tokens"].as_i64())
        .sum();
    assert!(writes > 0, "cache writes stored");
    assert!(
        stored
            .iter()
            .all(|s| s["attributes"]["gen_ai.usage.cache_creation.input_tokens"].is_null())
    );
}
