//! The `http` room: HTTP/1.1 on the client's side of the proxy, by hand over a `TcpStream`.
//!
//! A request head is read up to its blank line and parsed by `httparse` (the parser ureq's
//! protocol crate uses, so no second one is built); its body is read whole (`Content-Length`
//! or `chunked`, answering `Expect: 100-continue` first), because it is forwarded with a
//! length and recorded as one record. A response is written as the upstream's bytes arrive:
//! with the upstream's `Content-Length` when it gave one, else as one chunk per read, each
//! flushed at once. That last part is why no server crate is used: tiny_http's chunked
//! encoder holds 8 KiB before it writes a chunk (tiny-http issue 185), which would hold an
//! SSE event back until 8 KiB of later events arrive.
//!
//! This file owns the wire syntax only. It must not know what an exchange means (that is
//! `exchange.rs`'s) nor open a connection to the upstream.

use std::io::{self, BufRead, Read, Write};
use std::net::TcpStream;

/// The longest request head accepted (request line and headers).
const MAX_HEAD_BYTES: usize = 64 * 1024;

/// The most headers a request may have.
const MAX_HEADERS: usize = 128;

/// The largest request body accepted: a prompt with images and documents inlined stays
/// far below; a larger body is refused with 413 rather than held in memory.
pub(super) const MAX_BODY_BYTES: usize = 256 * 1024 * 1024;

/// Headers that describe one hop, not the message: never forwarded in either direction
/// (RFC 9110 §7.6.1), and the framing headers the proxy sets itself.
const HOP_BY_HOP: [&str; 10] = [
    "connection",
    "keep-alive",
    "proxy-authenticate",
    "proxy-authorization",
    "proxy-connection",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "content-length",
];

/// Whether a header describes one hop (or the body's framing) and is not forwarded.
pub(super) fn is_hop_by_hop(name: &str) -> bool {
    HOP_BY_HOP.iter().any(|hop| name.eq_ignore_ascii_case(hop))
}

/// A request's head, as the client sent it.
#[derive(Debug)]
pub(super) struct RequestHead {
    /// `GET`, `POST`, ...
    pub(super) method: String,
    /// The request target: path and query (`/v1/messages?beta=true`).
    pub(super) target: String,
    /// HTTP/1.0 (0) or HTTP/1.1 (1).
    pub(super) minor_version: u8,
    /// The headers, names as sent, values as bytes.
    pub(super) headers: Vec<(String, Vec<u8>)>,
}

impl RequestHead {
    /// The first value of header `name`, as text.
    pub(super) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .and_then(|(_, value)| std::str::from_utf8(value).ok())
            .map(str::trim)
    }

    /// The target's path, without its query (which may hold a key: `?key=`).
    pub(super) fn path(&self) -> &str {
        self.target.split('?').next().unwrap_or_default()
    }

    /// Whether the client keeps the connection open after this exchange.
    pub(super) fn keep_alive(&self) -> bool {
        let connection = self.header("connection").unwrap_or_default();
        let says = |word: &str| {
            connection
                .split(',')
                .any(|token| token.trim().eq_ignore_ascii_case(word))
        };
        if self.minor_version == 0 {
            says("keep-alive")
        } else {
            !says("close")
        }
    }
}

/// What is wrong with a request, as the status the client is answered with.
#[derive(Debug)]
pub(super) enum BadRequest {
    /// The connection failed or closed mid-request: nobody to answer.
    Closed,
    /// 400, 413, 431 or 501, and why.
    Status(u16, String),
}

impl From<io::Error> for BadRequest {
    fn from(_: io::Error) -> Self {
        BadRequest::Closed
    }
}

/// Reads the next request head; `None` when the client closed the connection between
/// requests.
pub(super) fn read_head(reader: &mut impl BufRead) -> Result<Option<RequestHead>, BadRequest> {
    let mut head = Vec::new();
    loop {
        let before = head.len();
        let read = reader
            .by_ref()
            .take((MAX_HEAD_BYTES + 1 - head.len()) as u64)
            .read_until(b'\n', &mut head)?;
        if read == 0 {
            if head.is_empty() {
                return Ok(None);
            }
            return Err(BadRequest::Closed);
        }
        if head.len() > MAX_HEAD_BYTES {
            return Err(BadRequest::Status(
                431,
                "the request head is longer than 64 KiB".into(),
            ));
        }
        let line = &head[before..];
        // Blank lines before a request line are allowed (RFC 9112 §2.2).
        if (line == b"\r\n" || line == b"\n") && before == 0 {
            head.clear();
            continue;
        }
        if line == b"\r\n" || line == b"\n" {
            break;
        }
    }
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut request = httparse::Request::new(&mut headers);
    match request.parse(&head) {
        Ok(httparse::Status::Complete(_)) => {}
        Ok(httparse::Status::Partial) => {
            return Err(BadRequest::Status(
                400,
                "the request head is incomplete".into(),
            ));
        }
        Err(error) => {
            return Err(BadRequest::Status(
                400,
                format!("a malformed request head: {error}"),
            ));
        }
    }
    Ok(Some(RequestHead {
        method: request.method.unwrap_or_default().to_owned(),
        target: request.path.unwrap_or_default().to_owned(),
        minor_version: request.version.unwrap_or(1),
        headers: request
            .headers
            .iter()
            .map(|header| (header.name.to_owned(), header.value.to_vec()))
            .collect(),
    }))
}

/// Reads the request's body whole: `Content-Length` bytes, or a `chunked` body decoded.
/// Answers `Expect: 100-continue` on `client` first.
pub(super) fn read_body(
    head: &RequestHead,
    reader: &mut impl BufRead,
    client: &mut impl Write,
) -> Result<Vec<u8>, BadRequest> {
    let chunked = match head.header("transfer-encoding") {
        None => false,
        Some(coding) if coding.eq_ignore_ascii_case("chunked") => true,
        Some(coding) => {
            return Err(BadRequest::Status(
                501,
                format!("the transfer coding {coding:?} is not supported"),
            ));
        }
    };
    let length = match (chunked, head.header("content-length")) {
        (true, _) | (false, None) => None,
        (false, Some(text)) => match text.parse::<usize>() {
            Ok(length) if length <= MAX_BODY_BYTES => Some(length),
            Ok(_) => return Err(too_large()),
            Err(_) => {
                return Err(BadRequest::Status(
                    400,
                    format!("a bad Content-Length: {text:?}"),
                ));
            }
        },
    };
    if !chunked && length.unwrap_or(0) == 0 {
        return Ok(Vec::new());
    }
    if head
        .header("expect")
        .is_some_and(|expect| expect.eq_ignore_ascii_case("100-continue"))
    {
        client.write_all(b"HTTP/1.1 100 Continue\r\n\r\n")?;
        client.flush()?;
    }
    match length {
        Some(length) => {
            let mut body = vec![0; length];
            reader.read_exact(&mut body)?;
            Ok(body)
        }
        None => read_chunked(reader),
    }
}

fn too_large() -> BadRequest {
    BadRequest::Status(413, "the request body is larger than 256 MiB".into())
}

/// A `chunked` body, decoded (chunk extensions and trailers read and dropped).
fn read_chunked(reader: &mut impl BufRead) -> Result<Vec<u8>, BadRequest> {
    let mut body = Vec::new();
    loop {
        let line = read_line(reader)?;
        let size = line.split(';').next().unwrap_or_default().trim();
        let size = usize::from_str_radix(size, 16)
            .map_err(|_| BadRequest::Status(400, format!("a bad chunk size: {size:?}")))?;
        if size == 0 {
            // Trailers, up to the blank line.
            while !read_line(reader)?.is_empty() {}
            return Ok(body);
        }
        if body.len() + size > MAX_BODY_BYTES {
            return Err(too_large());
        }
        let start = body.len();
        body.resize(start + size, 0);
        reader.read_exact(&mut body[start..])?;
        if !read_line(reader)?.is_empty() {
            return Err(BadRequest::Status(
                400,
                "a chunk longer than its size".into(),
            ));
        }
    }
}

/// One line of a chunked body's framing, without its line ending.
fn read_line(reader: &mut impl BufRead) -> Result<String, BadRequest> {
    let mut line = Vec::new();
    reader.by_ref().take(4096).read_until(b'\n', &mut line)?;
    if !line.ends_with(b"\n") {
        return Err(BadRequest::Closed);
    }
    let text = String::from_utf8_lossy(&line);
    Ok(text.trim_end_matches(['\r', '\n']).to_owned())
}

/// How a response's body is framed to the client.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Framing {
    /// No body (`HEAD`, 204, 304).
    None,
    /// Exactly this many bytes, as the upstream announced.
    Length(u64),
    /// Chunked: one chunk per read from the upstream.
    Chunked,
    /// Until the connection closes (an HTTP/1.0 client, which knows no chunks).
    Close,
}

/// Writes the response head: status line, the upstream's headers (less hop-by-hop ones),
/// and the framing's own header.
pub(super) fn write_head(
    client: &mut impl Write,
    status: u16,
    reason: &str,
    headers: &[(String, Vec<u8>)],
    framing: Framing,
    keep_alive: bool,
) -> io::Result<()> {
    let mut head = format!("HTTP/1.1 {status} {reason}\r\n").into_bytes();
    for (name, value) in headers {
        if is_hop_by_hop(name) {
            continue;
        }
        head.extend_from_slice(name.as_bytes());
        head.extend_from_slice(b": ");
        head.extend_from_slice(value);
        head.extend_from_slice(b"\r\n");
    }
    match framing {
        Framing::None => {}
        Framing::Length(length) => {
            head.extend_from_slice(format!("content-length: {length}\r\n").as_bytes())
        }
        Framing::Chunked => head.extend_from_slice(b"transfer-encoding: chunked\r\n"),
        Framing::Close => {}
    }
    if !keep_alive || framing == Framing::Close {
        head.extend_from_slice(b"connection: close\r\n");
    }
    head.extend_from_slice(b"\r\n");
    client.write_all(&head)?;
    client.flush()
}

/// Writes one piece of the body as it came, and flushes it: the client sees it now.
pub(super) fn write_piece(
    client: &mut impl Write,
    framing: Framing,
    bytes: &[u8],
) -> io::Result<()> {
    if bytes.is_empty() {
        return Ok(());
    }
    if framing == Framing::Chunked {
        let mut chunk = format!("{:x}\r\n", bytes.len()).into_bytes();
        chunk.extend_from_slice(bytes);
        chunk.extend_from_slice(b"\r\n");
        client.write_all(&chunk)?;
    } else {
        client.write_all(bytes)?;
    }
    client.flush()
}

/// Ends a body that came whole: the last chunk of a chunked one.
pub(super) fn write_end(client: &mut impl Write, framing: Framing) -> io::Result<()> {
    if framing == Framing::Chunked {
        client.write_all(b"0\r\n\r\n")?;
        client.flush()?;
    }
    Ok(())
}

/// Answers with the proxy's own error (the upstream could not be asked, the request was
/// malformed), as JSON the SDKs print, and closes the connection.
pub(super) fn write_error(client: &mut TcpStream, status: u16, message: &str) -> io::Result<()> {
    let body = serde_json::json!({
        "error": { "type": "axt_proxy_error", "message": message }
    })
    .to_string();
    let headers = [("content-type".to_owned(), b"application/json".to_vec())];
    write_head(
        client,
        status,
        reason(status),
        &headers,
        Framing::Length(body.len() as u64),
        false,
    )?;
    write_piece(client, Framing::Length(0), body.as_bytes())
}

/// The reason phrase of the statuses the proxy makes itself.
fn reason(status: u16) -> &'static str {
    match status {
        400 => "Bad Request",
        413 => "Content Too Large",
        431 => "Request Header Fields Too Large",
        501 => "Not Implemented",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        _ => "Error",
    }
}

#[cfg(test)]
mod tests {
    use std::io::BufReader;

    use super::*;

    fn head(text: &str) -> RequestHead {
        read_head(&mut BufReader::new(text.as_bytes()))
            .unwrap()
            .unwrap()
    }

    #[test]
    fn a_head_is_parsed_and_its_query_kept_out_of_the_path() {
        let head = head(
            "POST /v1beta/models/g:streamGenerateContent?alt=sse&key=K HTTP/1.1\r\n\
             Host: x\r\nx-goog-api-key: K\r\nConnection: close\r\n\r\n",
        );
        assert_eq!(head.method, "POST");
        assert_eq!(head.path(), "/v1beta/models/g:streamGenerateContent");
        assert_eq!(head.header("X-Goog-Api-Key"), Some("K"));
        assert!(!head.keep_alive());
    }

    #[test]
    fn a_chunked_body_is_decoded_and_100_continue_answered() {
        let text = "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nExpect: 100-continue\r\n\r\n\
                    3;ext=1\r\nabc\r\n2\r\nde\r\n0\r\nTrailer: x\r\n\r\n";
        let mut reader = BufReader::new(text.as_bytes());
        let head = read_head(&mut reader).unwrap().unwrap();
        let mut client = Vec::new();
        let body = read_body(&head, &mut reader, &mut client).unwrap();
        assert_eq!(body, b"abcde");
        assert_eq!(client, b"HTTP/1.1 100 Continue\r\n\r\n");
    }

    #[test]
    fn a_body_cut_short_is_an_io_error_and_a_bad_length_a_400() {
        let text = "POST / HTTP/1.1\r\nContent-Length: 10\r\n\r\nabc";
        let mut reader = BufReader::new(text.as_bytes());
        let head = read_head(&mut reader).unwrap().unwrap();
        let outcome = read_body(&head, &mut reader, &mut Vec::new());
        assert!(matches!(outcome, Err(BadRequest::Closed)), "{outcome:?}");
        let text = "POST / HTTP/1.1\r\nContent-Length: ten\r\n\r\n";
        let mut reader = BufReader::new(text.as_bytes());
        let head = read_head(&mut reader).unwrap().unwrap();
        let outcome = read_body(&head, &mut reader, &mut Vec::new());
        assert!(
            matches!(outcome, Err(BadRequest::Status(400, _))),
            "{outcome:?}"
        );
    }

    #[test]
    fn a_chunk_is_written_framed_and_hop_by_hop_headers_dropped() {
        let mut out = Vec::new();
        let headers = [
            ("content-type".to_owned(), b"text/event-stream".to_vec()),
            ("Transfer-Encoding".to_owned(), b"chunked".to_vec()),
            ("content-length".to_owned(), b"5".to_vec()),
        ];
        write_head(&mut out, 200, "OK", &headers, Framing::Chunked, true).unwrap();
        write_piece(&mut out, Framing::Chunked, b"data: 1\n\n").unwrap();
        write_end(&mut out, Framing::Chunked).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\
             transfer-encoding: chunked\r\n\r\n9\r\ndata: 1\n\n\r\n0\r\n\r\n"
        );
    }
}
