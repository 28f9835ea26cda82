//! Deterministic trace and span ids: the same run exported twice, or exported live and then
//! in batch, yields the same ids, so a backend that keys spans by id deduplicates them.
//!
//! The derivation (stable: changing it changes every id a user has already exported):
//!
//! * a **trace id** is the 128-bit [FNV-1a] hash of `"axt.trace\0"` followed by the UTF-8
//!   bytes of the *root* run's id. Every run linked under the root (sub-runs, at any depth)
//!   takes the root's trace id, so linked files land in one trace;
//! * a **span id** is the low 64 bits of the 128-bit FNV-1a hash of `"axt.span\0"`, the run
//!   id, `"\0"`, the span's role (`run`, `step`, `chat` or `tool`), `"\0"` and the decimal
//!   `seq` of the event that opens the span (`run.started` or the run's first event,
//!   `step.started`, a model turn's first `message.assistant`, the call's `tool.call`). The
//!   role keeps apart two spans opened by one event (a run without `run.started` opened by
//!   its first step);
//! * an id whose bytes are all zero, which OTLP reads as "no id", becomes `...01`.
//!
//! FNV-1a is not a cryptographic hash: ids are unique for honest input, and a transcript
//! crafted to collide with another's ids only confuses its own trace.
//!
//! [FNV-1a]: http://www.isthe.com/chongo/tech/comp/fnv/index.html

use std::fmt;

/// A 16-byte trace id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TraceId(pub [u8; 16]);

/// An 8-byte span id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SpanId(pub [u8; 8]);

/// What a span stands for, one of the four inputs to its id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SpanRole {
    /// The run of a file (`invoke_agent` or `invoke_workflow`).
    Run,
    /// A step.
    Step,
    /// A model turn (`chat`).
    Chat,
    /// A tool call (`execute_tool`).
    Tool,
}

impl SpanRole {
    fn as_str(self) -> &'static str {
        match self {
            SpanRole::Run => "run",
            SpanRole::Step => "step",
            SpanRole::Chat => "chat",
            SpanRole::Tool => "tool",
        }
    }
}

impl TraceId {
    /// The trace of the run tree whose root run is `root_run_id`.
    pub fn of_root(root_run_id: &str) -> TraceId {
        let mut hash = Fnv128::new();
        hash.write(b"axt.trace\0");
        hash.write(root_run_id.as_bytes());
        let mut bytes = hash.finish().to_be_bytes();
        if bytes == [0; 16] {
            bytes[15] = 1;
        }
        TraceId(bytes)
    }
}

impl SpanId {
    /// The span of `role` that the event `seq` of run `run_id` opens.
    pub fn of(run_id: &str, role: SpanRole, seq: u64) -> SpanId {
        let mut hash = Fnv128::new();
        hash.write(b"axt.span\0");
        hash.write(run_id.as_bytes());
        hash.write(b"\0");
        hash.write(role.as_str().as_bytes());
        hash.write(b"\0");
        hash.write(seq.to_string().as_bytes());
        let mut bytes = (hash.finish() as u64).to_be_bytes();
        if bytes == [0; 8] {
            bytes[7] = 1;
        }
        SpanId(bytes)
    }
}

impl fmt::Display for TraceId {
    /// Lower-case hex, as OTLP/JSON writes it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.iter().try_for_each(|b| write!(f, "{b:02x}"))
    }
}

impl fmt::Display for SpanId {
    /// Lower-case hex, as OTLP/JSON writes it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.iter().try_for_each(|b| write!(f, "{b:02x}"))
    }
}

/// 128-bit FNV-1a (offset basis and prime from the FNV reference).
struct Fnv128(u128);

impl Fnv128 {
    const OFFSET: u128 = 0x6c62272e07bb014262b821756295c58d;
    const PRIME: u128 = 0x0000000001000000000000000000013B;

    fn new() -> Self {
        Fnv128(Self::OFFSET)
    }

    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 ^= u128::from(byte);
            self.0 = self.0.wrapping_mul(Self::PRIME);
        }
    }

    fn finish(&self) -> u128 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a_128_matches_the_reference_vectors() {
        // The FNV reference's test vectors for the empty string and "a".
        assert_eq!(Fnv128::new().finish(), 0x6c62272e07bb014262b821756295c58d);
        let mut a = Fnv128::new();
        a.write(b"a");
        assert_eq!(a.finish(), 0xd228cb696f1a8caf78912b704e4a8964);
    }

    #[test]
    fn ids_are_stable_and_keep_roles_apart() {
        assert_eq!(
            TraceId::of_root("nest-root").to_string(),
            TraceId::of_root("nest-root").to_string()
        );
        assert_ne!(TraceId::of_root("a"), TraceId::of_root("b"));
        let run = SpanId::of("r", SpanRole::Run, 1);
        assert_ne!(run, SpanId::of("r", SpanRole::Step, 1));
        assert_ne!(run, SpanId::of("r", SpanRole::Run, 2));
        assert_ne!(run, SpanId::of("s", SpanRole::Run, 1));
        assert_eq!(run.to_string().len(), 16);
        assert_eq!(TraceId::of_root("r").to_string().len(), 32);
    }
}
