//! Pieces every benchmark stream generator shares: a seeded PRNG, the text pools and the
//! tool-output size mix of `performance.md`'s corpus, JSON string literals, and the agent
//! loop of the HTTP APIs' generators ([`api_rounds`]).
//!
//! Included with `#[path]` next to the generators (`benches/providers/mod.rs` lists them),
//! which reach it as `super::gen_common`.

use std::fmt::Write as _;

/// A small, fast, seeded PRNG (SplitMix64): the same seed always gives the same stream.
pub(crate) struct Rng(u64);

impl Rng {
    /// A generator from `seed`.
    pub(crate) fn new(seed: u64) -> Self {
        Rng(seed)
    }

    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `lo..=hi`.
    pub(crate) fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + (self.next() % (hi - lo + 1) as u64) as usize
    }

    /// True `percent`% of the time.
    pub(crate) fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    pub(crate) fn pick(&mut self, items: &[&'static str]) -> &'static str {
        items[self.range(0, items.len() - 1)]
    }

    pub(crate) fn hex(&mut self, len: usize) -> String {
        (0..len)
            .map(|_| char::from(b"0123456789abcdef"[self.range(0, 15)]))
            .collect()
    }

    pub(crate) fn base62(&mut self, len: usize) -> String {
        const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
        (0..len)
            .map(|_| char::from(ALPHABET[self.range(0, ALPHABET.len() - 1)]))
            .collect()
    }

    pub(crate) fn uuid(&mut self) -> String {
        let h = self.hex(32);
        format!(
            "{}-{}-4{}-a{}-{}",
            &h[..8],
            &h[8..12],
            &h[13..16],
            &h[17..20],
            &h[20..32]
        )
    }
}

const CODE: &[&str] = &[
    "    let path = r\"C:\\Users\\dev\\src\\main.rs\";",
    "    println!(\"{}: \\\"{}\\\"\", name, value);",
    "\tif re.is_match(r\"^\\d{4}-\\d{2}-\\d{2}$\") {",
    "fn parse(input: &str) -> Result<Config, Error> {",
    "    return Err(format!(\"unexpected token '{}' at {}\", tok, pos).into());",
    "}\n",
    "const PATTERN = /\"([^\"\\\\]|\\\\.)*\"/g;",
    "\t\tself.buffer.extend_from_slice(&bytes[start..end]);",
];
const LOG: &[&str] = &[
    "\u{1b}[32m   Compiling\u{1b}[0m axt v0.1.0 (/home/dev/src/axt)",
    "\u{1b}[1m\u{1b}[31merror[E0308]\u{1b}[0m: mismatched types",
    "test normalize::tests::chunked ... \u{1b}[32mok\u{1b}[0m",
    "npm WARN deprecated inflight@1.0.6: This module is not supported",
    "2026-06-25T10:33:19.904Z INFO server listening on 0.0.0.0:8080",
    "    Finished `test` profile [unoptimized + debuginfo] target(s) in 4.21s",
];
pub(crate) const PROSE: &[&str] = &[
    "the",
    "normalizer",
    "reads",
    "each",
    "record",
    "and",
    "hands",
    "out",
    "blocks",
    "as",
    "soon",
    "as",
    "they",
    "are",
    "complete",
    "which",
    "keeps",
    "memory",
    "bounded",
    "while",
    "tool",
    "results",
    "arrive",
    "in",
    "any",
    "order",
    "so",
    "we",
    "correlate",
    "by",
    "id",
];
const NON_ASCII: &[&str] = &["é", "ß", "→", "✓", "…", "日本語", "한국어", "😀", "🚀", "€"];

/// About `len` bytes of tool output, prose, code or logs.
pub(crate) fn text(rng: &mut Rng, len: usize) -> String {
    let mut out = String::with_capacity(len + 80);
    let style = rng.range(0, 3);
    let mut line_no = rng.range(1, 400);
    while out.len() < len {
        match style {
            0 => {
                out.push_str(rng.pick(CODE));
                out.push('\n');
            }
            1 => {
                out.push_str(rng.pick(LOG));
                out.push('\n');
            }
            2 => {
                let _ = write!(out, "{line_no:>6}\u{2192}");
                line_no += 1;
                out.push_str(rng.pick(CODE));
                out.push('\n');
            }
            _ => {
                for _ in 0..rng.range(4, 14) {
                    out.push_str(if rng.chance(3) {
                        rng.pick(NON_ASCII)
                    } else {
                        rng.pick(PROSE)
                    });
                    out.push(' ');
                }
                out.push_str(".\n");
            }
        }
        if style != 3 && rng.chance(3) {
            out.push_str(rng.pick(NON_ASCII));
            out.push(' ');
        }
    }
    out
}

/// A tool output size from the corpus mix: 55% 20 B-1 KB, 28% 1-10 KB, 14% 10-50 KB,
/// 3% 50-100 KB.
pub(crate) fn output_size(rng: &mut Rng) -> usize {
    match rng.range(0, 99) {
        0..=54 => rng.range(20, 1024),
        55..=82 => rng.range(1024, 10 * 1024),
        83..=96 => rng.range(10 * 1024, 50 * 1024),
        _ => rng.range(50 * 1024, 100 * 1024),
    }
}

/// A JSON string literal.
pub(crate) fn lit(value: &str) -> String {
    serde_json::to_string(value).expect("a string serializes")
}

/// Where to cut the next piece of `rest`: `lo..=hi` bytes, moved forward to a character
/// boundary (all of `rest` when it is shorter).
pub(crate) fn cut(rng: &mut Rng, rest: &str, lo: usize, hi: usize) -> usize {
    let mut at = rng.range(lo, hi).min(rest.len());
    while !rest.is_char_boundary(at) {
        at += 1;
    }
    at
}

/// An ISO timestamp `ms` milliseconds after 09:00 on a fixed day, as the CLIs write them.
pub(crate) fn timestamp(ms: usize) -> String {
    format!(
        "2026-05-14T{:02}:{:02}:{:02}.{:03}Z",
        9 + ms / 3_600_000 % 12,
        ms / 60_000 % 60,
        ms / 1000 % 60,
        ms % 1000
    )
}

/// At least `bytes` bytes of whole sessions from `seed`: `session` writes one session to the
/// output per call, until the output is long enough.
pub(crate) fn sessions(
    bytes: usize,
    seed: u64,
    mut session: impl FnMut(&mut Rng, &mut Vec<u8>),
) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::with_capacity(bytes + (512 << 10));
    while out.len() < bytes {
        session(&mut rng, &mut out);
    }
    out
}

/// One HTTP API agent loop a generator writes: requests that repeat the conversation and
/// the streamed responses that answer them. Each API's generator says how its messages
/// look; [`api_rounds`] drives the loop the same way for all of them.
pub(crate) trait ApiConversation {
    /// What identifies a call the response made (its id, and its name where the API's
    /// result names it too).
    type Call;

    fn rng(&mut self) -> &mut Rng;

    /// Writes the request that repeats the conversation so far.
    fn request(&mut self);

    /// Writes one streamed response making `calls` tool calls, its content joining the
    /// conversation; the calls it made.
    fn response(&mut self, calls: usize) -> Vec<Self::Call>;

    /// Adds a user message of `text` (a JSON string literal) to the conversation.
    fn user_text(&mut self, text: &str);

    /// Adds the user message that answers the calls, each with its output (a JSON string
    /// literal), to the conversation.
    fn user_results(&mut self, results: Vec<(Self::Call, String)>);
}

/// An API session of 2-10 rounds after its first request: each round a response with 0-3
/// calls (none in the last), then, when it made calls, their results and the next request;
/// a round without calls is followed by "Go on." and the next request (but the last).
pub(crate) fn api_rounds<S: ApiConversation>(session: &mut S) {
    session.request();
    let rounds = session.rng().range(2, 10);
    for round in 1..=rounds {
        let calls = if round == rounds {
            0
        } else {
            session.rng().range(0, 3)
        };
        let made = session.response(calls);
        if made.is_empty() {
            if round < rounds {
                session.user_text(&lit("Go on."));
                session.request();
            }
            continue;
        }
        let results = made
            .into_iter()
            .map(|call| {
                let size = output_size(session.rng());
                (call, lit(&text(session.rng(), size)))
            })
            .collect();
        session.user_results(results);
        session.request();
    }
}
