//! The transcript's two limits, one constant each, shared by every writer and every reader
//! of the crate: how long a line may be ([`MAX_LINE_BYTES`]) and how deep it may nest
//! ([`MAX_DEPTH`]). A leaf: the line splitter, the decoder, the strict writer and the
//! fitting of an over-limit event all import it, and it imports nothing.
//!
//! One limit, not one per side: a writer that wrote a line its own reader refuses (a 19 MB
//! line, a tool input nested 124 levels inside an event) made a transcript that `axt check`
//! calls broken and that `tree`, `stats` and `export` read with a message missing. So the
//! strict writer refuses what the reader would ([`EncodeError::TooLong`],
//! [`EncodeError::TooDeep`](super::EncodeError::TooDeep)), and every writer of a transcript
//! first cuts what does not fit ([`fit_event`](super::fit_event)), saying so.
//!
//! [`EncodeError::TooLong`]: super::EncodeError::TooLong

/// The longest transcript line, in bytes, its LF not counted: 16 MiB. Writers never write a
/// longer one; readers read every line up to it (and skip, reporting, a longer one). It is
/// also the default size limit of a provider record (`normalize::DEFAULT_MAX_RECORD_BYTES`):
/// real single records exceed 1 MiB (large tool results), and integrators have had to raise
/// limits to 8 MiB.
pub const MAX_LINE_BYTES: usize = 16 << 20;

/// The deepest a transcript line may nest, in arrays and objects, the event's own object
/// counting as level 1: 127. A deeper line is refused by the decoder
/// ([`DecodeCategory::TooDeep`](super::DecodeCategory::TooDeep)), so that no line can exhaust
/// a reader's stack; the number is serde_json's recursion limit (it refuses the 128th level),
/// which a test holds equal. A tool input sits at level 5 of its event (event, payload,
/// blocks, block), so a tool input of its own may nest 123 levels.
pub const MAX_DEPTH: usize = 127;
