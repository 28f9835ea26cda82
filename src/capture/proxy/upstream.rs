//! The `upstream` room: the proxy as the upstream API's client (ureq, rustls for
//! `https://`, connections pooled and reused across clients).
//!
//! The client's headers go through as they came, credentials included (they are the
//! upstream's to check, and never written), less the hop-by-hop ones, `Host` (the
//! upstream's own is sent) and `Accept-Encoding` (identity is asked for, so that what is
//! recorded is the API's text), and `Expect` (the proxy answered it and has the body whole);
//! ureq adds no header of its own. Statuses go back as they
//! are, redirects too (they are the client's to follow). This file owns that and must not
//! know what an exchange records.

use std::time::Duration;

use super::http::{self, RequestHead};

/// The upstream API: its base URL and a pooled client.
pub(super) struct Upstream {
    base: String,
    agent: ureq::Agent,
}

/// An upstream's answer: status, reason, headers, and the body as it arrives.
pub(super) type Answer = (
    u16,
    String,
    Vec<(String, Vec<u8>)>,
    ureq::BodyReader<'static>,
);

impl Upstream {
    /// A client of `url`; `None` when it is not `http://` or `https://` with a host.
    pub(super) fn new(url: &str) -> Option<Upstream> {
        let base = url.trim_end_matches('/');
        let host = base
            .strip_prefix("https://")
            .or_else(|| base.strip_prefix("http://"))?;
        if host.is_empty() || host.contains(['?', '#']) {
            return None;
        }
        let agent = ureq::Agent::config_builder()
            // Statuses are the client's to read; redirects its to follow.
            .http_status_as_error(false)
            .max_redirects(0)
            // No header of ureq's own: the client's go through as they are.
            .user_agent(ureq::config::AutoHeaderValue::None)
            .accept(ureq::config::AutoHeaderValue::None)
            .timeout_connect(Some(Duration::from_secs(30)))
            .no_delay(true)
            .build()
            .into();
        Some(Upstream {
            base: base.to_owned(),
            agent,
        })
    }

    /// Sends the client's request on, with its headers less the hop-by-hop ones (and
    /// `Host`, `Accept-Encoding`: the upstream is asked for identity).
    pub(super) fn send(&self, head: &RequestHead, body: &[u8]) -> Result<Answer, String> {
        let query = head.target.find('?').map(|at| &head.target[at..]);
        let mut request = ureq::http::Request::builder()
            .method(head.method.as_str())
            .uri(format!("{}{}", self.base, head.target));
        for (name, value) in &head.headers {
            // `Expect: 100-continue` was answered already: the body is here whole.
            if http::is_hop_by_hop(name)
                || name.eq_ignore_ascii_case("host")
                || name.eq_ignore_ascii_case("accept-encoding")
                || name.eq_ignore_ascii_case("expect")
            {
                continue;
            }
            request = request.header(name.as_str(), value.as_slice());
        }
        request = request.header("accept-encoding", "identity");
        // The error says what failed, never the query (a key may be in it).
        let scrub = |error: String| match query {
            Some(query) if query.len() > 1 => error.replace(query, ""),
            _ => error,
        };
        let answer = if body.is_empty() {
            let request = request.body(()).map_err(|error| scrub(error.to_string()))?;
            self.agent.run(request)
        } else {
            let request = request
                .body(body.to_vec())
                .map_err(|error| scrub(error.to_string()))?;
            self.agent.run(request)
        };
        let response = answer.map_err(|error| scrub(error.to_string()))?;
        let status = response.status();
        let headers = response
            .headers()
            .iter()
            .map(|(name, value)| (name.as_str().to_owned(), value.as_bytes().to_vec()))
            .collect();
        Ok((
            status.as_u16(),
            status.canonical_reason().unwrap_or("").to_owned(),
            headers,
            response.into_body().into_reader(),
        ))
    }
}
