//! RFC 3339 timestamps as they travel on the wire.
//!
//! A [`Timestamp`] keeps the exact text it was read from, so that a transcript read back and
//! written again is byte-for-byte the same in this field whatever precision or offset the
//! original writer chose. Writers produce UTC with microsecond precision
//! (`2026-06-08T08:14:42.123456Z`); readers accept any RFC 3339 date-time, and only a writer
//! insists that the text is one.
//!
//! Formatting and parsing are written out here rather than taken from a date crate: the
//! transcript needs exactly one format, and `now()` sits on the recorder's per-event path.

use std::cell::Cell;
use std::fmt;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// An RFC 3339 date-time, kept as the text it was read from or written as.
///
/// Equality, ordering and hashing are those of the text.
#[derive(Clone)]
pub struct Timestamp {
    text: Text,
}

/// The bytes of text a timestamp keeps in place: every RFC 3339 time up to nanoseconds
/// with an offset (35 bytes; the writers' form is 27), so that the copy of it every item
/// and event carries is no allocation, and `now` none either.
const INLINE: usize = 37;

/// A timestamp's text, and whether it is known to be RFC 3339.
#[derive(Clone)]
enum Text {
    /// Up to [`INLINE`] bytes of text, always from a `str`.
    Inline {
        len: u8,
        /// Made by this module (`now`, `from_unix_nanos`, `parse`), so already known to be
        /// RFC 3339: the strict writer need not parse it again for every event.
        checked: bool,
        bytes: [u8; INLINE],
    },
    /// A longer text (a tolerant reader keeps whatever it found).
    Heap { checked: bool, text: Box<str> },
}

impl Text {
    fn new(text: &str, checked: bool) -> Text {
        match u8::try_from(text.len()) {
            Ok(len) if text.len() <= INLINE => {
                let mut bytes = [0; INLINE];
                bytes[..text.len()].copy_from_slice(text.as_bytes());
                Text::Inline {
                    len,
                    checked,
                    bytes,
                }
            }
            _ => Text::Heap {
                checked,
                text: text.into(),
            },
        }
    }

    fn as_str(&self) -> &str {
        match self {
            Text::Inline { len, bytes, .. } => {
                std::str::from_utf8(&bytes[..usize::from(*len)]).expect("kept whole from a str")
            }
            Text::Heap { text, .. } => text,
        }
    }

    fn checked(&self) -> bool {
        match self {
            Text::Inline { checked, .. } | Text::Heap { checked, .. } => *checked,
        }
    }
}

/// As the struct of a text and its check was shown.
impl fmt::Debug for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Timestamp")
            .field("text", &self.as_str())
            .field("checked", &self.text.checked())
            .finish()
    }
}

impl PartialEq for Timestamp {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for Timestamp {}

impl std::hash::Hash for Timestamp {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl PartialOrd for Timestamp {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Timestamp {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

/// Why a text is not an RFC 3339 date-time.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid RFC 3339 timestamp {text:?}: {reason}")]
pub struct TimestampError {
    text: String,
    reason: &'static str,
}

impl Timestamp {
    /// The current time, in UTC with microsecond precision.
    pub fn now() -> Self {
        // Not rustix's clock_gettime (seconds and nanoseconds as the kernel gives them,
        // skipping SystemTime's checked `duration_since`, ~56 of a stamp's ~160
        // instructions): its own vDSO lookup crashes under valgrind (SIGSEGV reading the
        // auxiliary vector), which would take callgrind away from every recorded event's
        // profile; tried in session 15 and not measured for that reason.
        Self::from_system_time(SystemTime::now())
    }

    /// A system time, formatted in UTC with microsecond precision.
    pub fn from_system_time(time: SystemTime) -> Self {
        let nanos = match time.duration_since(UNIX_EPOCH) {
            // The common case (now) without 128-bit division.
            Ok(after) if after.as_secs() <= MAX_SECS as u64 => {
                return Self::from_second(after.as_secs() as i64, after.subsec_micros());
            }
            Ok(after) => after.as_nanos() as i128,
            Err(before) => -(before.duration().as_nanos() as i128),
        };
        Self::from_unix_nanos(nanos)
    }

    /// Nanoseconds since the Unix epoch, formatted in UTC with microsecond precision
    /// (sub-microsecond digits are truncated toward the past).
    ///
    /// Years outside 0000..=9999 cannot be written in RFC 3339 and are clamped to its range.
    pub fn from_unix_nanos(nanos: i128) -> Self {
        const MIN: i128 = -62_167_219_200 * NANOS_PER_SEC; // 0000-01-01T00:00:00Z
        const MAX: i128 = MAX_SECS as i128 * NANOS_PER_SEC + 999_999_999; // 9999-12-31T23:59:59.999999999Z
        let nanos = nanos.clamp(MIN, MAX);
        let secs = nanos.div_euclid(NANOS_PER_SEC) as i64;
        let micros = (nanos.rem_euclid(NANOS_PER_SEC) / 1_000) as u32;
        Self::from_second(secs, micros)
    }

    /// Second `secs` since the Unix epoch (of a year 0000..=9999) and `micros` into it.
    fn from_second(secs: i64, micros: u32) -> Self {
        let second = LAST_SECOND.with(|last| match last.get() {
            (cached, second) if cached == secs => second,
            _ => {
                let second = format_second(secs);
                last.set((secs, second));
                second
            }
        });
        let mut bytes = [0; INLINE];
        bytes[..20].copy_from_slice(&second);
        // Two digits at a time from a table: a division and a remainder per digit were a
        // quarter of a stamp's formatting (the recorder bench's pairs row stamps each event).
        let micros = micros as usize;
        bytes[20..22].copy_from_slice(&DIGIT_PAIRS[micros / 10_000 % 100]);
        bytes[22..24].copy_from_slice(&DIGIT_PAIRS[micros / 100 % 100]);
        bytes[24..26].copy_from_slice(&DIGIT_PAIRS[micros % 100]);
        bytes[26] = b'Z';
        Timestamp {
            text: Text::Inline {
                len: 27,
                checked: true,
                bytes,
            },
        }
    }

    /// Checks that `text` is an RFC 3339 date-time and keeps it as it is.
    pub fn parse(text: &str) -> Result<Self, TimestampError> {
        parse_unix_nanos(text)?;
        Ok(Timestamp {
            text: Text::new(text, true),
        })
    }

    /// The instant `text` names, in nanoseconds since the Unix epoch, or why it is not an
    /// RFC 3339 date-time: [`Timestamp::parse`] without keeping the text.
    pub(crate) fn nanos_of(text: &str) -> Result<i128, TimestampError> {
        parse_unix_nanos(text)
    }

    /// Becomes `text`, which the caller checked is RFC 3339 ([`Timestamp::nanos_of`]).
    pub(crate) fn replace_checked(&mut self, text: &str) {
        self.text = Text::new(text, true);
    }

    /// Keeps `text` as it is, without checking it: what a tolerant reader does.
    ///
    /// [`Timestamp::unix_nanos`] tells later whether it was valid.
    pub fn from_raw(text: impl Into<String>) -> Self {
        let text: String = text.into();
        if text.len() <= INLINE {
            return Timestamp::unchecked(&text);
        }
        Timestamp {
            text: Text::Heap {
                checked: false,
                text: text.into_boxed_str(),
            },
        }
    }

    /// [`Timestamp::from_raw`] of a borrowed text.
    fn unchecked(text: &str) -> Self {
        Timestamp {
            text: Text::new(text, false),
        }
    }

    /// The text as written on the wire.
    pub fn as_str(&self) -> &str {
        self.text.as_str()
    }

    /// Whether the text is exactly `text`, compared as bytes (no UTF-8 check of the kept
    /// text, as [`Timestamp::as_str`] makes): what a stream's every record asks.
    pub(crate) fn is(&self, text: &str) -> bool {
        let kept = match &self.text {
            Text::Inline { len, bytes, .. } => bytes.get(..usize::from(*len)),
            Text::Heap { text, .. } => Some(text.as_bytes()),
        };
        kept == Some(text.as_bytes())
    }

    /// The text's bytes when it is known to be RFC 3339 (made by this module, or parsed by
    /// it): ASCII digits and `-:.+TtZz `, none of which JSON escapes, so that the strict
    /// writer copies them between quotes as they are, with neither the UTF-8 check of
    /// [`Timestamp::as_str`] nor an escape scan. `None` for a text not known to be.
    pub(crate) fn rfc3339_bytes(&self) -> Option<&[u8]> {
        match &self.text {
            Text::Inline {
                len,
                checked: true,
                bytes,
            } => bytes.get(..usize::from(*len)),
            Text::Heap {
                checked: true,
                text,
            } => Some(text.as_bytes()),
            Text::Inline { .. } | Text::Heap { .. } => None,
        }
    }

    /// Nanoseconds since the Unix epoch, or why the text is not an RFC 3339 date-time.
    pub fn unix_nanos(&self) -> Result<i128, TimestampError> {
        parse_unix_nanos(self.as_str())
    }

    /// Whether the text is RFC 3339; free for a timestamp this module made (inlined into
    /// the writer's checks of every event, the parse kept out of line).
    #[inline]
    pub(crate) fn check(&self) -> Result<(), TimestampError> {
        if self.text.checked() {
            Ok(())
        } else {
            self.check_text()
        }
    }

    #[inline(never)]
    fn check_text(&self) -> Result<(), TimestampError> {
        self.unix_nanos().map(drop)
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Timestamp {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit;
        impl serde::de::Visitor<'_> for Visit {
            type Value = Timestamp;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            // Read from the borrowed text: a time is kept in place, not first allocated.
            fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Timestamp, E> {
                Ok(Timestamp::unchecked(text))
            }
            fn visit_string<E: serde::de::Error>(self, text: String) -> Result<Timestamp, E> {
                Ok(Timestamp::from_raw(text))
            }
        }
        deserializer.deserialize_string(Visit)
    }
}

const NANOS_PER_SEC: i128 = 1_000_000_000;

/// The last second of 9999-12-31, the latest RFC 3339 can write.
const MAX_SECS: i64 = 253_402_300_799;

thread_local! {
    /// The second this thread formatted last: the many events of one second (a recorder's,
    /// a workflow's) differ only in their sub-second digits, and the calendar arithmetic is
    /// most of a timestamp's cost.
    static LAST_SECOND: Cell<(i64, [u8; 20])> = const { Cell::new((i64::MIN, [0; 20])) };
}

/// The two ASCII digits of each number below 100.
static DIGIT_PAIRS: [[u8; 2]; 100] = {
    let mut pairs = [[0; 2]; 100];
    let mut n = 0;
    while n < 100 {
        pairs[n] = [b'0' + (n / 10) as u8, b'0' + (n % 10) as u8];
        n += 1;
    }
    pairs
};

/// `YYYY-MM-DDTHH:MM:SS.` of a second since the Unix epoch (a year of 0000..=9999).
fn format_second(secs: i64) -> [u8; 20] {
    let days = secs.div_euclid(86_400);
    let second_of_day = secs.rem_euclid(86_400) as u32;
    let (year, month, day) = civil_from_days(days);
    let (hour, minute, second) = (
        second_of_day / 3_600,
        second_of_day / 60 % 60,
        second_of_day % 60,
    );
    let mut text = String::with_capacity(20);
    push_digits(&mut text, year as u32, 4);
    text.push('-');
    push_digits(&mut text, month, 2);
    text.push('-');
    push_digits(&mut text, day, 2);
    text.push('T');
    push_digits(&mut text, hour, 2);
    text.push(':');
    push_digits(&mut text, minute, 2);
    text.push(':');
    push_digits(&mut text, second, 2);
    text.push('.');
    text.into_bytes().try_into().expect("20 bytes")
}

fn push_digits(text: &mut String, value: u32, width: u32) {
    let mut divisor = 10u32.pow(width - 1);
    while divisor > 0 {
        text.push(char::from(b'0' + (value / divisor % 10) as u8));
        divisor /= 10;
    }
}

/// Days since 1970-01-01 to (year, month, day) in the proleptic Gregorian calendar.
/// Howard Hinnant's `civil_from_days`, exact for every representable day.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1_460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let mp = (5 * day_of_year + 2) / 153;
    let day = (day_of_year - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// (year, month, day) to days since 1970-01-01; the inverse of [`civil_from_days`].
fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let year = year - i64::from(month <= 2);
    let era = year.div_euclid(400);
    let year_of_era = year.rem_euclid(400);
    let month = i64::from(month);
    let day_of_year =
        (153 * (if month > 2 { month - 3 } else { month + 9 }) + 2) / 5 + i64::from(day) - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// The seconds and fraction of an RFC 3339 date-time's minute, as [`parse_unix_nanos`] reads
/// them (`ss(.fraction)?` from byte 17, the fraction's first nine digits), in nanoseconds, and
/// where its offset begins; `None` where that reading fails. Nothing before byte 17 or from
/// the offset on is looked at: a stamp that shares those bytes with one known valid is
/// valid when this reads, and later than it when this is larger (`RunMeta::saw_time`).
pub(crate) fn minute_tail(bytes: &[u8]) -> Option<(u64, usize)> {
    let &[tens, ones] = bytes.get(17..)?.first_chunk::<2>()?;
    if !(tens.is_ascii_digit() && ones.is_ascii_digit()) {
        return None;
    }
    let second = u64::from(tens - b'0') * 10 + u64::from(ones - b'0');
    if second > 60 {
        return None;
    }
    let (fraction_nanos, at) = fraction(bytes)?;
    Some((second * 1_000_000_000 + fraction_nanos, at))
}

/// The optional `.fraction` of a date-time's seconds, from byte 19: its first nine digits in
/// nanoseconds, and where it ends (19 without one); `None` for a point without digits.
/// In 64 bits and scaled once by a table: this runs for every record of a stamped stream
/// (`RunMeta::saw_time`), and a 128-bit multiply per digit and per missing digit was a fifth
/// of its cost.
#[inline]
fn fraction(bytes: &[u8]) -> Option<(u64, usize)> {
    let mut at = 19;
    let mut nanos = 0u64;
    if bytes.get(at) == Some(&b'.') {
        at += 1;
        let start = at;
        let mut kept = 0;
        while let Some(&digit) = bytes.get(at).filter(|b| b.is_ascii_digit()) {
            if kept < 9 {
                nanos = nanos * 10 + u64::from(digit - b'0');
                kept += 1;
            }
            at += 1;
        }
        if at == start {
            return None;
        }
        nanos *= POW10[9 - kept];
    }
    Some((nanos, at))
}

/// `YYYY-MM-DD(T|t| )hh:mm:ss(.fraction)?(Z|z|(+|-)hh:mm)`, RFC 3339 section 5.6.
fn parse_unix_nanos(text: &str) -> Result<i128, TimestampError> {
    let fail = |reason| TimestampError {
        text: text.to_owned(),
        reason,
    };
    let bytes = text.as_bytes();
    // Reading each field as pairs of digits (a closure matching two bytes) instead of this
    // fold took more instructions, not fewer (21.7 M against 17.7 M for the Gemini bench
    // stream's 56,000 stamps, callgrind): the closure was not inlined everywhere.
    let number = |range: std::ops::Range<usize>| -> Option<u32> {
        let digits = bytes.get(range)?;
        digits.iter().try_fold(0u32, |acc, &b| {
            b.is_ascii_digit().then(|| acc * 10 + u32::from(b - b'0'))
        })
    };
    let expect = |at: usize, allowed: &[u8]| bytes.get(at).is_some_and(|b| allowed.contains(b));

    let year = number(0..4).ok_or_else(|| fail("expected a four-digit year"))?;
    let month = number(5..7).filter(|_| expect(4, b"-"));
    let month = month.ok_or_else(|| fail("expected -MM after the year"))?;
    let day = number(8..10).filter(|_| expect(7, b"-"));
    let day = day.ok_or_else(|| fail("expected -DD after the month"))?;
    if !expect(10, b"Tt ") {
        return Err(fail("expected T between date and time"));
    }
    let hour = number(11..13).ok_or_else(|| fail("expected a two-digit hour"))?;
    let minute = number(14..16).filter(|_| expect(13, b":"));
    let minute = minute.ok_or_else(|| fail("expected :MM after the hour"))?;
    let second = number(17..19).filter(|_| expect(16, b":"));
    let second = second.ok_or_else(|| fail("expected :SS after the minute"))?;

    let year = i64::from(year);
    if !(1..=12).contains(&month) {
        return Err(fail("month out of range"));
    }
    if day == 0 || day > days_in_month(year, month) {
        return Err(fail("day out of range for the month"));
    }
    if hour > 23 || minute > 59 || second > 60 {
        return Err(fail("time of day out of range"));
    }

    let (fraction_nanos, at) =
        fraction(bytes).ok_or_else(|| fail("expected digits after the decimal point"))?;

    let offset_secs: i64 = match bytes.get(at) {
        Some(b'Z' | b'z') if at + 1 == bytes.len() => 0,
        Some(&sign @ (b'+' | b'-')) if at + 6 == bytes.len() && bytes[at + 3] == b':' => {
            let hours = number(at + 1..at + 3).filter(|h| *h <= 23);
            let minutes = number(at + 4..at + 6).filter(|m| *m <= 59);
            let (Some(hours), Some(minutes)) = (hours, minutes) else {
                return Err(fail("invalid UTC offset"));
            };
            let magnitude = i64::from(hours * 3_600 + minutes * 60);
            if sign == b'+' { magnitude } else { -magnitude }
        }
        _ => return Err(fail("expected Z or a ±hh:mm offset at the end")),
    };

    let days = days_from_civil(year, month, day);
    let secs = days * 86_400 + i64::from(hour * 3_600 + minute * 60 + second) - offset_secs;
    Ok(i128::from(secs) * NANOS_PER_SEC + i128::from(fraction_nanos))
}

/// 10 to the power of the index: what a fraction of fewer than nine digits is scaled by.
const POW10: [u64; 10] = [
    1,
    10,
    100,
    1_000,
    10_000,
    100_000,
    1_000_000,
    10_000_000,
    100_000_000,
    1_000_000_000,
];

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;

    #[rstest]
    #[case(0, "1970-01-01T00:00:00.000000Z")]
    #[case(1_780_906_482_123_000_000, "2026-06-08T08:14:42.123000Z")]
    #[case(951_782_400_000_000_000, "2000-02-29T00:00:00.000000Z")]
    #[case(-1, "1969-12-31T23:59:59.999999Z")]
    #[case(i128::MAX, "9999-12-31T23:59:59.999999Z")]
    #[case(i128::MIN, "0000-01-01T00:00:00.000000Z")]
    fn formats_utc_with_microseconds(#[case] nanos: i128, #[case] expected: &str) {
        assert_eq!(Timestamp::from_unix_nanos(nanos).as_str(), expected);
    }

    /// Every microsecond of a second is written as its six digits (the digits come from a
    /// table of pairs).
    #[test]
    fn every_microsecond_is_written_as_its_six_digits() {
        let second: i128 = 1_780_000_000 * NANOS_PER_SEC;
        for micros in 0..1_000_000 {
            let stamp = Timestamp::from_unix_nanos(second + micros * 1_000 + 999);
            assert_eq!(
                stamp.as_str(),
                format!("2026-05-28T20:26:40.{micros:06}Z"),
                "{micros}"
            );
        }
    }

    #[rstest]
    #[case("2026-06-08T08:14:42.123Z", 1_780_906_482_123_000_000)]
    #[case("2026-06-08T08:14:42Z", 1_780_906_482_000_000_000)]
    #[case("2026-06-08t08:14:42z", 1_780_906_482_000_000_000)]
    #[case("2026-06-08 10:14:42+02:00", 1_780_906_482_000_000_000)]
    #[case("2026-06-08T03:44:42.5-04:30", 1_780_906_482_500_000_000)]
    #[case("2026-06-08T08:14:42.123456789Z", 1_780_906_482_123_456_789)]
    #[case("2026-06-08T08:14:42.1234567891234Z", 1_780_906_482_123_456_789)]
    #[case("1969-12-31T23:59:59.999999Z", -1_000)]
    fn parses_rfc3339(#[case] text: &str, #[case] nanos: i128) {
        assert_eq!(Timestamp::parse(text).unwrap().unix_nanos(), Ok(nanos));
    }

    #[rstest]
    #[case("", "expected a four-digit year")]
    #[case("2026-13-01T00:00:00Z", "month out of range")]
    #[case("2025-02-29T00:00:00Z", "day out of range for the month")]
    #[case("2026-06-08T24:00:00Z", "time of day out of range")]
    #[case("2026-06-08T08:14:42", "expected Z or a ±hh:mm offset at the end")]
    #[case("2026-06-08T08:14:42.Z", "expected digits after the decimal point")]
    #[case("2026-06-08T08:14:42+0200", "expected Z or a ±hh:mm offset at the end")]
    #[case("2026-06-08T08:14:42Zjunk", "expected Z or a ±hh:mm offset at the end")]
    #[case("2026-06-08", "expected T between date and time")]
    #[case("２０２６-06-08T08:14:42Z", "expected a four-digit year")]
    fn rejects_what_is_not_rfc3339(#[case] text: &str, #[case] reason: &str) {
        let error = Timestamp::parse(text).unwrap_err();
        assert_eq!(error.reason, reason);
    }

    #[test]
    fn formatting_and_parsing_agree_across_four_centuries() {
        for days in (-719_162..2_932_896).step_by(997) {
            let nanos = i128::from(days) * 86_400 * NANOS_PER_SEC + 45_296_789_012_000;
            let stamp = Timestamp::from_unix_nanos(nanos);
            assert_eq!(stamp.unix_nanos(), Ok(nanos), "{stamp}");
        }
    }

    /// The second a thread formatted last is reused only for that same second: times of
    /// one second, of the next, of another date and out of range each read as their own.
    #[test]
    fn a_reused_second_never_leaks_into_another_time() {
        use std::time::Duration;
        let at = |secs: u64, nanos: u32| {
            Timestamp::from_system_time(UNIX_EPOCH + Duration::new(secs, nanos)).to_string()
        };
        assert_eq!(
            at(1_700_000_000, 123_456_789),
            "2023-11-14T22:13:20.123456Z"
        );
        assert_eq!(
            at(1_700_000_000, 999_999_999),
            "2023-11-14T22:13:20.999999Z"
        );
        assert_eq!(at(1_700_000_001, 0), "2023-11-14T22:13:21.000000Z");
        assert_eq!(at(1_700_000_000, 5_000), "2023-11-14T22:13:20.000005Z");
        assert_eq!(at(0, 0), "1970-01-01T00:00:00.000000Z");
        assert_eq!(
            Timestamp::from_unix_nanos(-1).as_str(),
            "1969-12-31T23:59:59.999999Z"
        );
        assert_eq!(at(86_400 * 365 * 9_000, 0), "9999-12-31T23:59:59.999999Z");
        assert_eq!(at(253_402_300_799, 7_000), "9999-12-31T23:59:59.000007Z");
        assert_eq!(at(1_700_000_000, 1_000), "2023-11-14T22:13:20.000001Z");
    }

    #[test]
    fn now_is_valid_and_utc() {
        let now = Timestamp::now();
        assert!(now.as_str().ends_with('Z'));
        assert!(now.unix_nanos().is_ok());
    }

    /// A text kept in place and one too long for it read, compare, order and hash by their
    /// text alike, checked or not, read from JSON or made here.
    #[rstest]
    #[case::inline_at_the_limit("2026-06-08T08:14:42.123456789+05:30xx")]
    #[case::heap_past_the_limit("2026-06-08T08:14:42.123456789+05:30xyz")]
    #[case::heap_with_multibyte("２０２６-06-08T08:14:42.123456789+05:30")]
    #[case::empty("")]
    fn a_text_of_any_length_is_kept_as_it_is(#[case] text: &str) {
        use std::hash::BuildHasher;
        let raw = Timestamp::from_raw(text);
        let read: Timestamp = serde_json::from_str(&serde_json::to_string(text).unwrap()).unwrap();
        let borrowed: Timestamp = serde_json::from_value(serde_json::json!(text)).unwrap();
        let hasher = std::hash::RandomState::new();
        for stamp in [&read, &borrowed] {
            assert_eq!(stamp.as_str(), text);
            assert_eq!(stamp, &raw);
            assert_eq!(hasher.hash_one(stamp), hasher.hash_one(&raw));
        }
        assert_eq!(raw.clone().as_str(), text);
        assert_eq!(raw.to_string(), text);
        assert_eq!(
            serde_json::to_string(&raw).unwrap(),
            serde_json::to_string(text).unwrap()
        );
        assert_eq!(raw.check().is_ok(), Timestamp::nanos_of(text).is_ok());
        let later = Timestamp::from_raw(format!("{text}~"));
        assert_eq!(raw.cmp(&later), std::cmp::Ordering::Less);
        let mut replaced = Timestamp::now();
        replaced.replace_checked(text);
        assert_eq!(replaced, raw);
    }

    /// A time this module makes is known to be RFC 3339; one read is checked when asked.
    #[test]
    fn only_what_this_module_made_or_parsed_is_taken_as_checked() {
        let text = "2026-06-08T08:14:42.123456Z";
        assert!(matches!(
            Timestamp::now().text,
            Text::Inline { checked: true, .. }
        ));
        assert!(matches!(
            Timestamp::parse(text).unwrap().text,
            Text::Inline { checked: true, .. }
        ));
        assert!(matches!(
            Timestamp::from_raw(text).text,
            Text::Inline { checked: false, .. }
        ));
        assert_eq!(
            format!("{:?}", Timestamp::from_raw(text)),
            format!("Timestamp {{ text: {text:?}, checked: false }}")
        );
        assert_eq!(std::mem::size_of::<Timestamp>(), 40);
    }
}
