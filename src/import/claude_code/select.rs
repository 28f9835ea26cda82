//! Choosing a thread's entries from the graph: the `parentUuid` chain to the last message;
//! the fallback to file order where a parent is not in the file; the entries of the
//! thread's messages and the results of its calls put back wherever they hang; every other
//! entry kept out, as a `duplicate` of one of the thread's or branch by branch, as
//! `rewound` or `side-branch`.
//!
//! This file owns those rules and the notes they raise; it builds no thread and reads no
//! content.

use std::collections::BTreeMap;

// foldhash, not std's SipHash (see plan.rs); nothing here depends on a table's order.
use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};

use super::log::{Entry, Kind, Log};
use crate::import::session::{Note, NoteKind};

/// The entries of one thread and how they were chosen.
pub(super) struct Selection {
    /// The thread's entries, in file order.
    pub(super) entries: Vec<usize>,
    /// Entries off the `parentUuid` chain that were put into the thread, by the rule that
    /// put them there (`parallel-call`, `parallel-result`, `file-order`).
    pub(super) rejoined: BTreeMap<&'static str, u64>,
    /// The group's other entries, in file order, with why they are not in the thread:
    /// `rewound` (a branch with a message the user or the model wrote: the user went back),
    /// `side-branch` (a branch of only hook, system and progress entries), `duplicate` (an
    /// entry repeating one of the thread's).
    pub(super) kept_out: Vec<(usize, &'static str)>,
}

/// The entries of one thread, in file order: the chain to the last message, the entries of
/// its messages and the results of its calls put back wherever they hang, everything else
/// off the chain left for the metadata.
pub(super) fn select(
    log: &Log,
    members: &[usize],
    by_uuid: &HashMap<&str, usize>,
    notes: &mut Vec<Note>,
) -> Selection {
    let entries = &log.entries;
    let in_group: HashSet<usize> = members.iter().copied().collect();
    let mut rejoined = BTreeMap::new();
    let Some(leaf) = members
        .iter()
        .rev()
        .find(|at| entries[**at].is_message() && entries[**at].uuid.is_some())
        .copied()
    else {
        // No message at all: every entry is metadata, in file order.
        return Selection {
            entries: members.to_vec(),
            rejoined,
            kept_out: Vec::new(),
        };
    };
    let mut chain = HashSet::new();
    // The chain's length at the first fallback to file order.
    let mut fallback = None;
    let mut at = leaf;
    loop {
        if !chain.insert(at) {
            break;
        }
        let entry = &entries[at];
        let parent = log.of(entry.parent).or(log.of(entry.logical_parent));
        let Some(parent) = parent else { break };
        match by_uuid.get(parent) {
            Some(next) if in_group.contains(next) => at = *next,
            // A sidechain's root may point into the main thread: that is its spawn point.
            Some(_) => break,
            None => {
                // The parent was never written to this file (a compaction whose logical
                // parent is elsewhere, or a phantom parentUuid): starting the thread here
                // would cost it everything before. Go on in file order instead, from the
                // last message before this entry.
                let (kind, field) = match entry.parent.is_none() {
                    true => (NoteKind::CompactionFallback, "logicalParentUuid"),
                    false => (NoteKind::MissingParent, "parentUuid"),
                };
                let before = &members[..members.partition_point(|m| *m < at)];
                let previous = before.iter().rev().copied().find(|m| {
                    let e = &entries[*m];
                    e.is_message() && e.uuid.is_some() && !chain.contains(m)
                });
                let message = match previous {
                    Some(previous) => format!(
                        "{field} {parent} is not in the file; the thread goes on in file order, from line {}",
                        entries[previous].line
                    ),
                    None => format!(
                        "{field} {parent} is not in the file and no message comes before it; the thread starts here"
                    ),
                };
                notes.push(Note {
                    file: log.path.clone(),
                    line: entry.line,
                    kind,
                    message,
                });
                let Some(previous) = previous else { break };
                fallback.get_or_insert(chain.len());
                at = previous;
            }
        }
    }
    // Everything the walk took in after a fallback is on the thread by file order.
    if let Some(from) = fallback {
        rejoined.insert("file-order", (chain.len() - from) as u64);
    }
    // Entries without a uuid (summary, file-history-snapshot, ...) are not part of the
    // graph: they stay, in file order, as metadata.
    for at in members {
        if entries[*at].uuid.is_none() {
            chain.insert(*at);
        }
    }
    let owned = rejoin(log, members, &mut chain, &mut rejoined);
    let kept_out = keep_out(log, &owned, members, by_uuid, &chain);
    let mut selected: Vec<usize> = chain.into_iter().collect();
    selected.sort_unstable();
    Selection {
        entries: selected,
        rejoined,
        kept_out,
    }
}

/// Puts back what belongs to the thread wherever its `parentUuid` points. Claude Code writes
/// one API message as a chain of entries, one content block each, sharing `message.id`; it
/// starts each tool as soon as its block is complete, and whatever it writes meanwhile (a
/// hook's progress or attachment, a sibling call's result, an agent's progress) can become
/// the parent of the message's next entry. Each result hangs off its own call, and the
/// conversation goes on from one entry of the batch. So, wherever they hang:
/// * every entry of a message the thread has is the thread's (`parallel-call`), unless it
///   is a copy of one it has (same content, or calls it has already);
/// * a result answering a call of the thread that has no result yet is the thread's
///   (`parallel-result`), and so is the body of a call's result written as an entry of its
///   own (a skill's text, naming its call by `sourceToolUseID`).
///
/// None of these makes a new message the thread's: a message is on the thread by the chain
/// alone, so a branch the user abandoned stays out. What the thread holds, once done.
fn rejoin<'a>(
    log: &'a Log,
    members: &[usize],
    chain: &mut HashSet<usize>,
    rejoined: &mut BTreeMap<&'static str, u64>,
) -> Owned<'a> {
    let entries = &log.entries;
    let mut thread = Owned::of(log, chain.iter().copied());
    let messages: HashSet<&str> = thread.messages.keys().copied().collect();
    for at in members {
        let entry = &entries[*at];
        let ours = entry.kind == Kind::Assistant
            && log
                .of(entry.message_id)
                .is_some_and(|id| messages.contains(id));
        if ours && !chain.contains(at) && thread.copy(entry).is_none() {
            chain.insert(*at);
            thread.add(entry);
            *rejoined.entry("parallel-call").or_default() += 1;
        }
    }
    for at in members {
        let entry = &entries[*at];
        if chain.contains(at) || entry.kind != Kind::User {
            continue;
        }
        let answers = (log.strings.ids(entry.tool_results))
            .any(|id| thread.calls.contains(id) && !thread.answered.contains(id));
        let body = log
            .of(entry.source_tool)
            .is_some_and(|call| thread.calls.contains(call) && !thread.bodies.contains(call));
        if answers || body {
            chain.insert(*at);
            thread.add(entry);
            *rejoined.entry("parallel-result").or_default() += 1;
        }
    }
    thread
}

/// What the thread holds, to tell an entry that belongs to it from a copy of one it has.
struct Owned<'a> {
    log: &'a Log,
    /// Message id -> the content hashes of its entries in the thread.
    messages: HashMap<&'a str, HashSet<u128>>,
    calls: HashSet<&'a str>,
    answered: HashSet<&'a str>,
    /// Calls whose result body (`sourceToolUseID`) the thread has.
    bodies: HashSet<&'a str>,
}

impl<'a> Owned<'a> {
    fn of(log: &'a Log, thread: impl Iterator<Item = usize>) -> Self {
        let mut owned = Owned {
            log,
            messages: HashMap::new(),
            calls: HashSet::new(),
            answered: HashSet::new(),
            bodies: HashSet::new(),
        };
        for at in thread {
            owned.add(&log.entries[at]);
        }
        owned
    }

    fn add(&mut self, entry: &Entry) {
        let log = self.log;
        if let (true, Some(id)) = (entry.kind == Kind::Assistant, log.of(entry.message_id)) {
            let hashes = self.messages.entry(id).or_default();
            hashes.extend(entry.content_hash());
        }
        if entry.kind == Kind::Assistant {
            self.calls.extend(log.strings.ids(entry.tool_uses));
        }
        if entry.kind == Kind::User {
            self.answered.extend(log.strings.ids(entry.tool_results));
            self.bodies.extend(log.of(entry.source_tool));
        }
    }

    /// Whether `entry` (off the thread) repeats what the thread has: an entry of one of its
    /// messages with content or calls it has, a result for calls it has answered, a body
    /// for a call whose body it has. `None` when it does not.
    fn copy(&self, entry: &Entry) -> Option<()> {
        let log = self.log;
        match entry.kind {
            Kind::Assistant => {
                let hashes = self.messages.get(log.of(entry.message_id)?)?;
                let same = entry.content_hash().is_some_and(|h| hashes.contains(&h));
                let calls = (log.strings.ids(entry.tool_uses)).any(|id| self.calls.contains(id));
                (same || calls).then_some(())
            }
            Kind::User => {
                let answered = !entry.tool_results.is_empty()
                    && (log.strings.ids(entry.tool_results))
                        .all(|id| self.calls.contains(id) && self.answered.contains(id));
                let body = log
                    .of(entry.source_tool)
                    .is_some_and(|call| self.bodies.contains(call));
                (answered || body).then_some(())
            }
            _ => None,
        }
    }
}

/// Why each entry of the group off the thread is kept out, in file order: a copy of what
/// the thread has is a `duplicate`; the others go branch by branch (an entry whose parent
/// is kept out too is in its parent's branch, wherever the file has it), and a branch is
/// `rewound` when someone wrote in it (the user went back to an earlier point and the log
/// kept the abandoned branch), else a `side-branch` of hook, system and progress entries.
/// `owned` is what the `thread` holds (as [`rejoin`] left it: made again, it was 1% of a
/// Claude Code import's instructions).
fn keep_out(
    log: &Log,
    owned: &Owned<'_>,
    members: &[usize],
    by_uuid: &HashMap<&str, usize>,
    thread: &HashSet<usize>,
) -> Vec<(usize, &'static str)> {
    let entries = &log.entries;
    let off: Vec<usize> = members
        .iter()
        .copied()
        .filter(|at| !thread.contains(at))
        .collect();
    let duplicate: HashSet<usize> = off
        .iter()
        .copied()
        .filter(|at| owned.copy(&entries[*at]).is_some())
        .collect();
    let kept: HashSet<usize> = off.iter().copied().collect();
    let parent = |at: usize| {
        let parent = *by_uuid.get(log.of(entries[at].parent)?)?;
        kept.contains(&parent).then_some(parent)
    };
    // Each entry's branch: its topmost kept-out ancestor (a cycle ends the climb).
    let mut branch_of: HashMap<usize, usize> = HashMap::new();
    for at in &off {
        let mut path = vec![*at];
        let mut seen: HashSet<usize> = [*at].into_iter().collect();
        let mut root = *at;
        while let Some(up) = parent(root) {
            if let Some(known) = branch_of.get(&up) {
                root = *known;
                break;
            }
            if !seen.insert(up) {
                break;
            }
            path.push(up);
            root = up;
        }
        for step in path {
            branch_of.insert(step, root);
        }
    }
    let rewound: HashSet<usize> = off
        .iter()
        .filter(|at| entries[**at].is_written() && !duplicate.contains(at))
        .map(|at| branch_of[at])
        .collect();
    off.iter()
        .map(|at| {
            let reason = if duplicate.contains(at) {
                "duplicate"
            } else if rewound.contains(&branch_of[at]) {
                "rewound"
            } else {
                "side-branch"
            };
            (*at, reason)
        })
        .collect()
}
