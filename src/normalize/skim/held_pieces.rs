//! Test pieces shared by the skims whose strings are held as the line escaped them
//! (`model::ToolOutput`): each is put at every place of strings of many lengths, and a skim
//! must read the line alike with the parse, or give it up.

/// Escapes and characters to put into a held string: every escape the writer writes, the
/// ones it does not (`\/`, `\u00e9`, upper-case hex, a surrogate pair), broken ones the
/// parse refuses, raw characters a string may not hold, and bytes that end or split a
/// record if a skim misreads the string's end.
pub(crate) const HELD_STRING_PIECES: [&str; 28] = [
    "\\\"",
    "\\\\",
    "\\/",
    "\\b",
    "\\f",
    "\\n",
    "\\r",
    "\\t",
    "\\u0000",
    "\\u001b",
    "\\u001B",
    "\\u000a",
    "\\u00e9",
    "\\u2028",
    "\\ud83d\\ude00",
    "\\ud800",
    "\\u12",
    "\\x",
    "\\",
    "\"",
    "\t",
    "\u{1}",
    "\u{7f}",
    "\u{e9}",
    "\u{1F600}",
    "}",
    ",",
    "ab",
];

/// Whether `piece`, in a JSON string, is what the writer writes for what the parse reads
/// from it: a skim may hold only such strings as they are.
pub(crate) fn writer_writes(piece: &str) -> bool {
    serde_json::from_str::<String>(&format!("\"{piece}\"")).is_ok_and(|text| {
        serde_json::to_string(&text).is_ok_and(|json| json == format!("\"{piece}\""))
    })
}
