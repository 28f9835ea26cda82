//! OTLP/HTTP: where to send (the `--endpoint` flag and the standard
//! `OTEL_EXPORTER_OTLP_*` variables), and sending, with retries.
//!
//! * **Endpoint.** A base URL, as `OTEL_EXPORTER_OTLP_ENDPOINT` takes it: the spans go to
//!   `<base>/v1/traces`. `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is the full URL, used as it
//!   is. An explicit base wins over the variables, the traces variable over the general one.
//! * **Headers.** `OTEL_EXPORTER_OTLP_HEADERS`, then `OTEL_EXPORTER_OTLP_TRACES_HEADERS`,
//!   then the caller's (`--header K=V`), a later value for a key replacing an earlier one.
//!   The variables hold `key=value` pairs separated by commas, values percent-encoded.
//! * **Protocol.** `http/protobuf` (the default) or `http/json`, from the caller, else
//!   `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL`, else `OTEL_EXPORTER_OTLP_PROTOCOL`; `grpc` is
//!   refused (axt speaks OTLP over HTTP only).
//! * **Timeout.** Per request, `OTEL_EXPORTER_OTLP_TRACES_TIMEOUT` or
//!   `OTEL_EXPORTER_OTLP_TIMEOUT` in milliseconds, else 10 s.
//! * **Retries.** A request answered 429, 502, 503 or 504, or that could not connect or
//!   timed out, is sent again after a backoff (0.5 s, doubling, at most 8 s; a
//!   `Retry-After` of seconds is honoured up to 30 s), up to 5 attempts. Any other
//!   answer outside 2xx is final. The span ids are deterministic, so a request that
//!   reached the collector before its answer was lost is deduplicated there.
//! * **Batches.** At most [`SPANS_PER_REQUEST`] spans a request, so a long run does not
//!   make one body larger than collectors accept (several MiB is a common limit).

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceResponse;
use prost::Message;

use super::encode::{request, to_json, to_protobuf};
use super::span::Span;
use crate::record::Redactor;

/// The most spans one request carries.
pub const SPANS_PER_REQUEST: usize = 1000;

/// The OTLP/HTTP body encoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    /// `http/protobuf`: `application/x-protobuf`.
    HttpProtobuf,
    /// `http/json`: `application/json`, the protobuf JSON mapping.
    HttpJson,
}

impl Protocol {
    /// Reads the OTel spelling (`http/protobuf`, `http/json`).
    pub fn parse(text: &str) -> Result<Protocol, SendError> {
        match text.trim() {
            "http/protobuf" => Ok(Protocol::HttpProtobuf),
            "http/json" => Ok(Protocol::HttpJson),
            "grpc" => Err(SendError::Config(
                "OTLP over gRPC is not supported: use http/protobuf or http/json".into(),
            )),
            other => Err(SendError::Config(format!(
                "unknown OTLP protocol {other:?}: use http/protobuf or http/json"
            ))),
        }
    }

    fn content_type(self) -> &'static str {
        match self {
            Protocol::HttpProtobuf => "application/x-protobuf",
            Protocol::HttpJson => "application/json",
        }
    }
}

/// Where and how to send.
#[derive(Clone, Debug, PartialEq)]
pub struct Destination {
    /// The full traces URL (`.../v1/traces`).
    pub url: String,
    /// Request headers, in order.
    pub headers: Vec<(String, String)>,
    /// The body encoding.
    pub protocol: Protocol,
    /// Per request.
    pub timeout: Duration,
    /// Attempts per request, the first included.
    pub attempts: u32,
    /// The first backoff; each next one doubles, up to 8 s.
    pub backoff: Duration,
}

impl Destination {
    /// The destination from an explicit base URL (or `None`: the variables'), headers and
    /// protocol, and the `OTEL_EXPORTER_OTLP_*` variables as `env` gives them.
    pub fn resolve(
        base: Option<&str>,
        headers: &[(String, String)],
        protocol: Option<Protocol>,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Destination, SendError> {
        let var = |name: &str| env(name).filter(|v| !v.trim().is_empty());
        let url = match (base, var("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")) {
            (Some(base), _) => traces_url(base),
            (None, Some(full)) => full.trim().to_owned(),
            (None, None) => match var("OTEL_EXPORTER_OTLP_ENDPOINT") {
                Some(base) => traces_url(&base),
                None => {
                    return Err(SendError::Config(
                        "no OTLP endpoint: give --endpoint URL or set \
                         OTEL_EXPORTER_OTLP_ENDPOINT"
                            .into(),
                    ));
                }
            },
        };
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(SendError::Config(format!(
                "OTLP endpoint {:?} is not an http:// or https:// URL",
                Redactor::credentials().redact(&url)
            )));
        }
        let mut all: Vec<(String, String)> = Vec::new();
        for name in [
            "OTEL_EXPORTER_OTLP_HEADERS",
            "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
        ] {
            if let Some(list) = var(name) {
                for pair in parse_headers(&list, name)? {
                    set_header(&mut all, pair);
                }
            }
        }
        for pair in headers {
            set_header(&mut all, pair.clone());
        }
        let protocol = match protocol {
            Some(protocol) => protocol,
            None => match var("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
                .or_else(|| var("OTEL_EXPORTER_OTLP_PROTOCOL"))
            {
                Some(text) => Protocol::parse(&text)?,
                None => Protocol::HttpProtobuf,
            },
        };
        let timeout = match var("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT")
            .or_else(|| var("OTEL_EXPORTER_OTLP_TIMEOUT"))
        {
            Some(ms) => Duration::from_millis(ms.trim().parse().map_err(|_| {
                SendError::Config(format!("OTLP timeout {ms:?} is not a number of ms"))
            })?),
            None => Duration::from_secs(10),
        };
        Ok(Destination {
            url,
            headers: all,
            protocol,
            timeout,
            attempts: 5,
            backoff: Duration::from_millis(500),
        })
    }
}

impl Destination {
    /// The URL as axt shows it in a message: a password in it (`https://user:PASSWORD@host`)
    /// or a token in its query masked by the credential redactor. Messages reach terminals
    /// and CI logs; the collector's credentials do not belong there.
    pub fn shown_url(&self) -> String {
        Redactor::credentials().redact(&self.url).into_owned()
    }
}

/// `<base>/v1/traces`, one slash between.
fn traces_url(base: &str) -> String {
    format!("{}/v1/traces", base.trim().trim_end_matches('/'))
}

fn set_header(headers: &mut Vec<(String, String)>, (key, value): (String, String)) {
    headers.retain(|(k, _)| !k.eq_ignore_ascii_case(&key));
    headers.push((key, value));
}

/// A `--header` argument, `KEY=VALUE`.
pub fn parse_header(text: &str) -> Result<(String, String), SendError> {
    match text.split_once('=') {
        Some((key, value)) if !key.trim().is_empty() => {
            Ok((key.trim().to_owned(), value.trim().to_owned()))
        }
        _ => Err(SendError::Config(format!(
            "header {text:?} is not KEY=VALUE"
        ))),
    }
}

/// The W3C-baggage-like list of `OTEL_EXPORTER_OTLP_HEADERS`.
fn parse_headers(list: &str, name: &str) -> Result<Vec<(String, String)>, SendError> {
    list.split(',')
        .filter(|item| !item.trim().is_empty())
        .map(|item| {
            let (key, value) = parse_header(item)
                .map_err(|_| SendError::Config(format!("{name}: {item:?} is not key=value")))?;
            Ok((key, percent_decode(&value)))
        })
        .collect()
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%'
            && let (Some(hi), Some(lo)) = (
                bytes.get(i + 1).copied().and_then(hex),
                bytes.get(i + 2).copied().and_then(hex),
            )
        {
            out.push((hi * 16 + lo) as u8);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Why spans could not be sent.
#[derive(Debug, thiserror::Error)]
pub enum SendError {
    /// The destination is misconfigured.
    #[error("{0}")]
    Config(String),
    /// The collector answered with a status that is not retried.
    #[error(
        "the collector at {url} refused the spans: HTTP {status}{}",
        body_text(body)
    )]
    Refused {
        /// The traces URL, its credentials masked ([`Destination::shown_url`]).
        url: String,
        /// The HTTP status.
        status: u16,
        /// The start of the response body.
        body: String,
    },
    /// Retries ran out on a retryable status or a connection error.
    #[error("gave up on the collector at {url} after {attempts} attempts: {last}")]
    GaveUp {
        /// The traces URL, its credentials masked ([`Destination::shown_url`]).
        url: String,
        /// Attempts made.
        attempts: u32,
        /// The last attempt's failure.
        last: String,
    },
}

fn body_text(body: &str) -> String {
    match body.trim() {
        "" => String::new(),
        text => format!(": {text}"),
    }
}

/// What the collector took.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Sent {
    /// Requests made that succeeded.
    pub requests: u64,
    /// Spans sent.
    pub spans: u64,
    /// Spans the collector said it rejected (OTLP partial success).
    pub rejected: u64,
    /// The collector's messages about them.
    pub messages: Vec<String>,
    /// Attempts that were retried.
    pub retries: u64,
}

/// Sends `spans` to `destination`, [`SPANS_PER_REQUEST`] at a time.
pub fn send(destination: &Destination, spans: &[Span]) -> Result<Sent, SendError> {
    send_watched(destination, spans, &Watch::default())
}

/// What a sender that must be able to stop (a live export) shares with [`send_watched`].
#[derive(Debug, Default)]
pub(crate) struct Watch {
    /// Set by the owner: no more attempts, and no more waiting between them.
    pub(crate) cancel: AtomicBool,
    /// Set here while the collector cannot be connected to at all (refused, no such host):
    /// a collector that is not there, as opposed to one that is slow.
    pub(crate) unreachable: AtomicBool,
}

/// As [`send`], stopping between attempts when `watch.cancel` is set, and saying in
/// `watch.unreachable` whether the last attempt could not connect.
pub(crate) fn send_watched(
    destination: &Destination,
    spans: &[Span],
    watch: &Watch,
) -> Result<Sent, SendError> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(destination.timeout))
        .build()
        .into();
    let mut sent = Sent::default();
    for chunk in spans.chunks(SPANS_PER_REQUEST) {
        let request = request(chunk);
        let body = match destination.protocol {
            Protocol::HttpProtobuf => to_protobuf(&request),
            Protocol::HttpJson => to_json(&request),
        };
        let answer = post(&agent, destination, &body, &mut sent.retries, watch)?;
        sent.requests += 1;
        sent.spans += chunk.len() as u64;
        if let Some(partial) = partial_success(destination.protocol, &answer) {
            sent.rejected += partial.0;
            sent.messages.extend(partial.1);
        }
    }
    Ok(sent)
}

/// One request, retried; the body of the 2xx answer.
fn post(
    agent: &ureq::Agent,
    destination: &Destination,
    body: &[u8],
    retries: &mut u64,
    watch: &Watch,
) -> Result<Vec<u8>, SendError> {
    let url = &destination.url;
    let mut backoff = destination.backoff;
    let mut attempt = 0;
    loop {
        attempt += 1;
        let mut request = agent
            .post(url)
            .header("Content-Type", destination.protocol.content_type())
            .header("User-Agent", concat!("axt/", env!("CARGO_PKG_VERSION")));
        for (key, value) in &destination.headers {
            request = request.header(key, value);
        }
        let sent = request.send(body);
        let unreachable = matches!(
            &sent,
            Err(ureq::Error::ConnectionFailed | ureq::Error::HostNotFound)
        ) || matches!(&sent, Err(ureq::Error::Io(error)) if error.kind() == std::io::ErrorKind::ConnectionRefused);
        watch.unreachable.store(unreachable, Ordering::SeqCst);
        let (last, wait) = match sent {
            Ok(mut response) => {
                let status = response.status().as_u16();
                let retry_after = response
                    .headers()
                    .get("retry-after")
                    .and_then(|v| v.to_str().ok())
                    .and_then(|v| v.trim().parse::<u64>().ok())
                    .map(|s| Duration::from_secs(s.min(30)));
                let answer = response
                    .body_mut()
                    .with_config()
                    .limit(1 << 20)
                    .read_to_vec()
                    .unwrap_or_default();
                if (200..300).contains(&status) {
                    return Ok(answer);
                }
                let text = shown(&answer);
                if !matches!(status, 429 | 502 | 503 | 504) {
                    return Err(SendError::Refused {
                        url: destination.shown_url(),
                        status,
                        body: text,
                    });
                }
                (format!("HTTP {status}{}", body_text(&text)), retry_after)
            }
            // The client's error can quote the URL it was given.
            Err(error) => (
                Redactor::credentials()
                    .redact(&error.to_string())
                    .into_owned(),
                None,
            ),
        };
        let gave_up = || SendError::GaveUp {
            url: destination.shown_url(),
            attempts: attempt,
            last: last.clone(),
        };
        if attempt >= destination.attempts || watch.cancel.load(Ordering::SeqCst) {
            return Err(gave_up());
        }
        *retries += 1;
        // In slices, so that a cancel is heard during a long backoff.
        let until = std::time::Instant::now() + wait.unwrap_or(backoff);
        while let Some(left) = until.checked_duration_since(std::time::Instant::now()) {
            if watch.cancel.load(Ordering::SeqCst) {
                return Err(gave_up());
            }
            std::thread::sleep(left.min(Duration::from_millis(20)));
        }
        backoff = (backoff * 2).min(Duration::from_secs(8));
    }
}

/// The start of a response body, as text, for an error message.
fn shown(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(&body[..body.len().min(1024)]);
    text.chars()
        .filter(|c| !c.is_control() || *c == ' ')
        .collect()
}

/// OTLP's partial success: spans rejected, and the collector's message.
fn partial_success(protocol: Protocol, answer: &[u8]) -> Option<(u64, Option<String>)> {
    if answer.is_empty() {
        return None;
    }
    let response = match protocol {
        Protocol::HttpProtobuf => ExportTraceServiceResponse::decode(answer).ok()?,
        Protocol::HttpJson => serde_json::from_slice(answer).ok()?,
    };
    let partial = response.partial_success?;
    if partial.rejected_spans == 0 && partial.error_message.is_empty() {
        return None;
    }
    let message = (!partial.error_message.is_empty()).then_some(partial.error_message);
    Some((u64::try_from(partial.rejected_spans).unwrap_or(0), message))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(vars: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |name| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| (*v).to_owned())
        }
    }

    #[test]
    fn the_endpoint_is_a_base_url_unless_the_traces_variable_names_it_whole() {
        let none = env(&[]);
        let d = Destination::resolve(Some("http://127.0.0.1:4318/"), &[], None, &none).unwrap();
        assert_eq!(d.url, "http://127.0.0.1:4318/v1/traces");
        assert_eq!(d.protocol, Protocol::HttpProtobuf);
        let vars = env(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318"),
            ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://other/custom"),
            ("OTEL_EXPORTER_OTLP_HEADERS", "a=1,b=x%20y"),
            ("OTEL_EXPORTER_OTLP_TRACES_HEADERS", "a=2"),
            ("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json"),
        ]);
        let d = Destination::resolve(None, &[("b".into(), "flag".into())], None, &vars).unwrap();
        assert_eq!(d.url, "http://other/custom");
        assert_eq!(
            d.headers,
            [("a".into(), "2".into()), ("b".into(), "flag".into())]
        );
        assert_eq!(d.protocol, Protocol::HttpJson);
        let base = env(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "https://c.example/otel")]);
        let d = Destination::resolve(None, &[], None, &base).unwrap();
        assert_eq!(d.url, "https://c.example/otel/v1/traces");
        let d = Destination::resolve(
            None,
            &[],
            None,
            &env(&[("OTEL_EXPORTER_OTLP_HEADERS", "k=%41")]),
        );
        assert!(d.is_err(), "no endpoint anywhere");
        let grpc = env(&[("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")]);
        let error = Destination::resolve(Some("http://x"), &[], None, &grpc).unwrap_err();
        assert!(error.to_string().contains("gRPC"), "{error}");
    }

    #[test]
    fn headers_must_be_key_value() {
        assert!(parse_header("novalue").is_err());
        assert_eq!(
            parse_header("Authorization=Bearer x=y").unwrap(),
            ("Authorization".into(), "Bearer x=y".into())
        );
        assert_eq!(percent_decode("a%2Cb%zz"), "a,b%zz");
    }
}
