//! [`CallIds`]: every router call id a run has used, so that one used twice is refused.
//!
//! A run keeps them until it ends, however many calls it makes, so they are kept as one
//! block of text and a table of where each starts, not one allocation each: a call's own
//! copy of its id (its scope's, its step ledger's) is freed when the call returns, while it
//! is still in the cache, and ending the run frees three buffers instead of one id per call
//! (a run of 100,000 calls spent 5% of its recording time freeing them one by one).
//!
//! This file only remembers ids; what a reused id means is the tool scope's to say.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::hash::{BuildHasher, BuildHasherDefault, Hasher};

use foldhash::fast::RandomState;

/// The set of ids; see the module docs.
#[derive(Debug, Default)]
pub(super) struct CallIds {
    /// Every id, one after the other.
    text: String,
    /// Each id's (start, end) in `text`, and the entry of the previous id with the same
    /// hash (`NONE` for none).
    entries: Vec<Span>,
    /// An id's hash to the entry of the last id with that hash. Keyed by the hash itself,
    /// not hashed again: foldhash's output is already spread over all 64 bits, and the
    /// table's second hash of it was ~8% of an insert (the recorder bench's pairs row).
    by_hash: HashMap<u64, usize, BuildHasherDefault<Prehashed>>,
    seed: RandomState,
}

/// The hasher of [`CallIds::by_hash`], whose keys are hashes already: the key is the hash.
#[derive(Default)]
struct Prehashed(u64);

impl Hasher for Prehashed {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Only `u64` keys reach it (`write_u64`); anything else is folded in, not lost.
        for &byte in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(byte);
        }
    }

    fn write_u64(&mut self, hash: u64) {
        self.0 = hash;
    }
}

#[derive(Debug)]
struct Span {
    start: usize,
    end: usize,
    same_hash: usize,
}

const NONE: usize = usize::MAX;

impl CallIds {
    /// Adds `id`; `false` when it was there already.
    pub(super) fn insert(&mut self, id: &str) -> bool {
        let hash = self.seed.hash_one(id);
        let index = self.entries.len();
        // One lookup of the hash: its slot is read, and written when the id is new.
        let head = match self.by_hash.entry(hash) {
            Entry::Vacant(slot) => {
                slot.insert(index);
                NONE
            }
            Entry::Occupied(mut slot) => {
                let head = *slot.get();
                let mut at = head;
                while at != NONE {
                    let entry = &self.entries[at];
                    if &self.text[entry.start..entry.end] == id {
                        return false;
                    }
                    at = entry.same_hash;
                }
                slot.insert(index);
                head
            }
        };
        let start = self.text.len();
        self.text.push_str(id);
        self.entries.push(Span {
            start,
            end: self.text.len(),
            same_hash: head,
        });
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_id_is_new_once_and_ids_alike_are_told_apart() {
        let mut ids = CallIds::default();
        assert!(ids.insert("call-1"));
        assert!(ids.insert("call-10"));
        assert!(ids.insert("call-"));
        assert!(ids.insert(""));
        assert!(!ids.insert("call-1"));
        assert!(!ids.insert("call-10"));
        assert!(!ids.insert(""));
        assert!(ids.insert("call-2"));
    }

    /// Ids whose hashes collide are still told apart: every id forced into one chain.
    #[test]
    fn ids_of_one_hash_are_compared_by_their_text() {
        let mut ids = CallIds::default();
        for n in 0..100 {
            let id = format!("id-{n}");
            assert!(ids.insert(&id));
            // Every id after the first chained to the one before, as one hash would.
            let last = ids.entries.len() - 1;
            ids.entries[last].same_hash = last.checked_sub(1).unwrap_or(NONE);
            let hash = ids.seed.hash_one(id.as_str());
            ids.by_hash.remove(&hash);
            for other in 0..=n {
                let other = ids.seed.hash_one(format!("id-{other}").as_str());
                ids.by_hash.insert(other, last);
            }
        }
        for n in 0..100 {
            assert!(!ids.insert(&format!("id-{n}")), "id-{n} found in the chain");
        }
        assert!(ids.insert("id-100"));
    }
}
