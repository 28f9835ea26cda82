//! The latest assistant and user records, by `uuid`, for a retraction to name: Claude Code
//! withdraws the refused reply of the turn it is in, a handful of records back.
//!
//! Every such record is remembered and almost none is ever asked for, so remembering is
//! what must be cheap: the notes are a ring of the latest [`RECENT_RECORDS`] records whose
//! slots (and their strings) are reused, no hashing and, once the ring is full, no
//! allocation. A retraction, rare, finds its `uuid`s by a scan of the ring.
//!
//! This file owns the notes only; what a retraction says and where it is listed is
//! `messages`' business.

/// How many of the latest records a retraction can name. Claude Code withdraws the refused
/// reply of the turn it is in, a handful of records back.
pub(super) const RECENT_RECORDS: usize = 4096;

/// An assistant or user record, as a retraction names it.
pub(super) struct RecordNote {
    pub(super) line: u64,
    pub(super) message_id: Option<String>,
    pub(super) tool_ids: Vec<String>,
}

/// One slot of the ring. Its strings keep their allocations from record to record.
#[derive(Default)]
struct Slot {
    uuid: String,
    line: u64,
    message_id: String,
    has_message_id: bool,
    /// The record's tool ids are the first `tools` of these.
    tool_ids: Vec<String>,
    tools: usize,
    /// Already handed to a retraction.
    taken: bool,
}

/// The latest records by `uuid`, at most [`RECENT_RECORDS`] of them.
#[derive(Default)]
pub(super) struct Recent {
    slots: Vec<Slot>,
    /// Once the ring is full: the slot of the oldest record, the next to be reused.
    oldest: usize,
}

impl Recent {
    /// Notes the record on `line` with this `uuid`, the message it belongs to and the tool
    /// calls it opens or answers.
    pub(super) fn remember<'a>(
        &mut self,
        uuid: &str,
        line: u64,
        message_id: Option<&str>,
        tool_ids: impl Iterator<Item = &'a str>,
    ) {
        let slot = if self.slots.len() < RECENT_RECORDS {
            self.slots.push(Slot::default());
            self.slots.last_mut().expect("just pushed")
        } else {
            let at = self.oldest;
            self.oldest = (at + 1) % RECENT_RECORDS;
            &mut self.slots[at]
        };
        replace(&mut slot.uuid, uuid);
        slot.line = line;
        slot.has_message_id = message_id.is_some();
        replace(&mut slot.message_id, message_id.unwrap_or(""));
        slot.tools = 0;
        for id in tool_ids {
            match slot.tool_ids.get_mut(slot.tools) {
                Some(kept) => replace(kept, id),
                None => slot.tool_ids.push(id.to_owned()),
            }
            slot.tools += 1;
        }
        slot.taken = false;
    }

    /// The note of the record with this `uuid` (the first one remembered, when a record
    /// came twice), `None` when it is not among the latest records or was taken already.
    pub(super) fn take(&mut self, uuid: &str) -> Option<RecordNote> {
        let (newer, older) = self.slots.split_at_mut(self.oldest);
        let slot = (older.iter_mut().chain(newer)).find(|slot| !slot.taken && slot.uuid == uuid)?;
        slot.taken = true;
        Some(RecordNote {
            line: slot.line,
            message_id: slot.has_message_id.then(|| slot.message_id.clone()),
            tool_ids: slot.tool_ids[..slot.tools].to_vec(),
        })
    }
}

/// `kept` becomes `text`, in the allocation it has.
fn replace(kept: &mut String, text: &str) {
    kept.clear();
    kept.push_str(text);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn note(recent: &mut Recent, uuid: &str) -> Option<(u64, Option<String>, Vec<String>)> {
        (recent.take(uuid)).map(|note| (note.line, note.message_id, note.tool_ids))
    }

    #[test]
    fn a_record_is_named_by_its_first_note_until_newer_ones_push_it_out() {
        let mut recent = Recent::default();
        recent.remember("u-1", 1, Some("msg_a"), ["toolu_1", "toolu_2"].into_iter());
        recent.remember("u-2", 2, None, ["toolu_3"].into_iter());
        // The same record again: the first note stands.
        recent.remember("u-1", 3, Some("msg_b"), [].into_iter());
        for line in 4..(RECENT_RECORDS as u64 + 2) {
            recent.remember(&format!("u-{line}"), line, None, [].into_iter());
        }
        recent.remember("u-last", 9999, Some("msg_z"), ["toolu_9"].into_iter());
        // u-1's first note and u-2 were pushed out; u-1's second copy is still there.
        assert_eq!(note(&mut recent, "u-2"), None);
        assert_eq!(
            note(&mut recent, "u-1"),
            Some((3, Some("msg_b".into()), vec![]))
        );
        assert_eq!(note(&mut recent, "u-1"), None, "taken once");
        assert_eq!(
            note(&mut recent, "u-last"),
            Some((9999, Some("msg_z".into()), vec!["toolu_9".into()]))
        );
        // The slot of u-1's first note, which had two tool ids, now holds a record with none.
        let newest = RECENT_RECORDS as u64 + 1;
        assert_eq!(
            note(&mut recent, &format!("u-{newest}")),
            Some((newest, None, vec![]))
        );
        assert_eq!(note(&mut recent, "u-4"), Some((4, None, vec![])));
    }

    #[test]
    fn a_record_remembered_twice_is_named_by_its_first_note() {
        let mut recent = Recent::default();
        recent.remember("u-1", 1, Some("msg_a"), ["toolu_1"].into_iter());
        recent.remember("u-1", 2, Some("msg_b"), [].into_iter());
        assert_eq!(
            note(&mut recent, "u-1"),
            Some((1, Some("msg_a".into()), vec!["toolu_1".into()]))
        );

        // Across the ring's wrap: the first copy in its last slot, the second in its first.
        let mut recent = Recent::default();
        let last = RECENT_RECORDS as u64;
        for line in 1..last {
            recent.remember(&format!("u-{line}"), line, None, [].into_iter());
        }
        recent.remember("u-dup", last, Some("msg_first"), [].into_iter());
        recent.remember("u-dup", last + 1, Some("msg_second"), [].into_iter());
        assert_eq!(
            note(&mut recent, "u-dup"),
            Some((last, Some("msg_first".into()), vec![]))
        );
    }
}
