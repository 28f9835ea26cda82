//! Choosing a thread's entries from the graph: the `parentUuid` chain to the last message;
//! the fallback to file order where a parent is not in the file; the parallel calls and
//! results forking off the chain put back; every other entry kept out, branch by branch,
//! as `rewound` or `side-branch`.
//!
//! This room owns those rules and the notes they raise; it builds no thread and reads no
//! content.

use std::collections::{BTreeMap, HashMap, HashSet};

use super::log::Log;
use super::session::{Note, NoteKind};

/// The entries of one thread and how they were chosen.
pub(super) struct Selection {
    /// The thread's entries, in file order.
    pub(super) entries: Vec<usize>,
    /// Entries off the `parentUuid` chain that were put into the thread, by the rule that
    /// put them there (`parallel-call`, `parallel-result`, `file-order`).
    pub(super) rejoined: BTreeMap<&'static str, u64>,
    /// The group's other entries, in file order, with why they are not in the thread:
    /// `rewound` (a branch with a message the user or the model wrote: the user went back),
    /// `side-branch` (a branch of only hook, system and progress entries).
    pub(super) kept_out: Vec<(usize, &'static str)>,
}

/// The entries of one thread, in file order: the chain to the last message, the parallel
/// calls and results forking off it put back, everything else off the chain left for the
/// metadata.
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
        let parent = entry.parent.as_deref().or(entry.logical_parent.as_deref());
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
    // Parallel tool use (Claude Code 2.x): one message is written as a chain of entries, one
    // `tool_use` each, sharing `message.id`; each result hangs off its own call's entry, and
    // the conversation goes on from one of them. The other calls fork off the chain where
    // their message does: an assistant entry whose parent is an entry of the same message
    // is that message, not a rewind.
    let mut children: HashMap<&str, Vec<usize>> = HashMap::new();
    for at in members {
        if let Some(parent) = entries[*at].parent.as_deref() {
            children.entry(parent).or_default().push(*at);
        }
    }
    let mut calls: HashSet<&str> = chain
        .iter()
        .flat_map(|at| entries[*at].tool_uses.iter().map(String::as_str))
        .collect();
    let mut pending: Vec<usize> = chain
        .iter()
        .copied()
        .filter(|at| entries[*at].message_id.is_some())
        .collect();
    while let Some(at) = pending.pop() {
        let (Some(uuid), Some(message)) = (&entries[at].uuid, &entries[at].message_id) else {
            continue;
        };
        for child in children.get(uuid.as_str()).into_iter().flatten() {
            let entry = &entries[*child];
            let same_message =
                entry.kind == "assistant" && entry.message_id.as_ref() == Some(message);
            // A copy of calls the thread has already is no parallel call.
            let new_calls = entry
                .tool_uses
                .iter()
                .all(|id| !calls.contains(id.as_str()));
            if same_message && new_calls && chain.insert(*child) {
                calls.extend(entry.tool_uses.iter().map(String::as_str));
                *rejoined.entry("parallel-call").or_default() += 1;
                pending.push(*child);
            }
        }
    }
    // Tool results off the chain answering calls of the thread that have no result in it
    // yet (each parallel result hangs off its own call); a second result for an answered
    // call stays off the thread, so that no call is answered twice.
    let mut answered: HashSet<&str> = chain
        .iter()
        .flat_map(|at| entries[*at].tool_results.iter().map(String::as_str))
        .collect();
    for at in members {
        let entry = &entries[*at];
        if chain.contains(at) || entry.kind != "user" {
            continue;
        }
        let answers = |id: &String| calls.contains(id.as_str()) && !answered.contains(id.as_str());
        if entry.tool_results.iter().any(answers) {
            chain.insert(*at);
            answered.extend(entry.tool_results.iter().map(String::as_str));
            *rejoined.entry("parallel-result").or_default() += 1;
        }
    }
    // What is left is kept out, branch by branch: an entry whose parent is kept out too is
    // in its parent's branch, and a branch is a rewind when anyone wrote in it.
    let mut branch_of: HashMap<usize, usize> = HashMap::new();
    let mut rewound: HashSet<usize> = HashSet::new();
    for at in members {
        if chain.contains(at) {
            continue;
        }
        let entry = &entries[*at];
        let root = entry
            .parent
            .as_deref()
            .and_then(|parent| branch_of.get(by_uuid.get(parent)?))
            .copied()
            .unwrap_or(*at);
        branch_of.insert(*at, root);
        if entry.is_written() {
            rewound.insert(root);
        }
    }
    let kept_out = members
        .iter()
        .filter_map(|at| {
            let root = branch_of.get(at)?;
            Some((
                *at,
                if rewound.contains(root) {
                    "rewound"
                } else {
                    "side-branch"
                },
            ))
        })
        .collect();
    let mut selected: Vec<usize> = chain.into_iter().collect();
    selected.sort_unstable();
    Selection {
        entries: selected,
        rejoined,
        kept_out,
    }
}
