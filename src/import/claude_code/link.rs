//! Linking sub-agents to the calls that spawned them: by the agent id a call's result
//! names, else by the prompt a call sent; and, for a session without a session log, which
//! agent is the root.
//!
//! This file owns the linking rules and the `unlinked-subagent` note; it looks only at the
//! threads' calls, results and prompts, through indexes, so linking stays linear.

use std::collections::{HashMap, HashSet};

use super::log::Task;
use super::thread::Thread;
use crate::import::session::{Note, NoteKind};

/// A sub-agent and the call that spawned it (`None`: none found, linked to the root).
pub(super) struct Link {
    pub(super) parent: usize,
    pub(super) call: Option<String>,
    pub(super) child: usize,
    pub(super) name: String,
}

/// Candidates in order; the ones before `next` are claimed (a claim is never undone).
#[derive(Default)]
struct Queue<T> {
    next: usize,
    items: Vec<T>,
}

impl<T> Queue<T> {
    fn first_unclaimed(&mut self, claimed: impl Fn(&T) -> bool) -> Option<&T> {
        while self.items.get(self.next).is_some_and(&claimed) {
            self.next += 1;
        }
        self.items.get(self.next)
    }
}

/// Of agent threads without a session log, the first that no call of another spawned (by
/// agent id or by prompt); the first when every one was spawned.
pub(super) fn root_agent(threads: &[Thread]) -> usize {
    // Who names each agent id and who sent each prompt.
    let mut naming: HashMap<&str, Vec<usize>> = HashMap::new();
    let mut sending: HashMap<u128, Vec<usize>> = HashMap::new();
    for (at, thread) in threads.iter().enumerate() {
        for agent in thread.spawned.values() {
            naming.entry(agent).or_default().push(at);
        }
        for prompt in thread.calls.iter().filter_map(|c| c.prompt) {
            sending.entry(prompt).or_default().push(at);
        }
    }
    let by_other =
        |by: Option<&Vec<usize>>, at: usize| by.is_some_and(|by| by.iter().any(|b| *b != at));
    (0..threads.len())
        .find(|at| {
            let thread = &threads[*at];
            let named = thread
                .agent
                .as_deref()
                .is_some_and(|a| by_other(naming.get(a), *at));
            let sent = thread
                .prompt
                .is_some_and(|p| by_other(sending.get(&p), *at));
            !named && !sent
        })
        .unwrap_or(0)
}

/// Links every sub-agent thread to the call that spawned it: the call whose result names
/// its agent id, else the first unclaimed `Task` / `Agent` call that sent its prompt. Both
/// are looked up in indexes, so linking is linear in the number of calls and sub-agents.
pub(super) fn link(threads: &[Thread], notes: &mut Vec<Note>) -> Vec<Link> {
    // Every Task / Agent call of every thread, in order: (thread, call).
    let calls: Vec<(usize, &Task)> = threads
        .iter()
        .enumerate()
        .flat_map(|(at, t)| t.calls.iter().map(move |call| (at, call)))
        .collect();
    let mut kind_of: HashMap<&str, Option<&str>> = HashMap::new();
    let mut by_prompt: HashMap<u128, Queue<usize>> = HashMap::new();
    for (at, (_, call)) in calls.iter().enumerate() {
        kind_of
            .entry(call.id.as_str())
            .or_insert(call.subagent_type.as_deref());
        if let Some(prompt) = call.prompt {
            by_prompt.entry(prompt).or_default().items.push(at);
        }
    }
    // Agent id -> the calls whose results name it: (thread, call id), thread by thread.
    let mut by_agent: HashMap<&str, Queue<(usize, &str)>> = HashMap::new();
    for (at, thread) in threads.iter().enumerate() {
        let mut spawned: Vec<(&String, &String)> = thread.spawned.iter().collect();
        spawned.sort_unstable();
        for (call, agent) in spawned {
            by_agent
                .entry(agent.as_str())
                .or_default()
                .items
                .push((at, call.as_str()));
        }
    }
    let mut claimed: HashSet<String> = HashSet::new();
    let mut links = Vec::new();
    for (child, thread) in threads.iter().enumerate().skip(1) {
        let agent = thread.agent.as_deref().unwrap_or("");
        let by_id = by_agent.get_mut(agent).and_then(|queue| {
            queue
                .first_unclaimed(|(_, call)| claimed.contains(*call))
                .map(|(parent, call)| (*parent, (*call).to_owned()))
        });
        let found = by_id.or_else(|| {
            let queue = by_prompt.get_mut(&thread.prompt?)?;
            let at = *queue.first_unclaimed(|at| claimed.contains(&calls[*at].1.id))?;
            Some((calls[at].0, calls[at].1.id.clone()))
        });
        match found {
            Some((parent, call)) if parent != child => {
                claimed.insert(call.clone());
                let name = thread
                    .name
                    .clone()
                    .or_else(|| {
                        kind_of
                            .get(call.as_str())
                            .copied()
                            .flatten()
                            .map(str::to_owned)
                    })
                    .unwrap_or_else(|| "subagent".into());
                links.push(Link {
                    parent,
                    call: Some(call),
                    child,
                    name,
                });
            }
            _ => {
                notes.push(Note {
                    file: thread.run.source.clone(),
                    line: 0,
                    kind: NoteKind::UnlinkedSubagent,
                    message: format!(
                        "sub-agent {agent:?}: no Task/Agent call names it or sent its prompt; linked to the session's end"
                    ),
                });
                let name = thread.name.clone().unwrap_or_else(|| "subagent".into());
                links.push(Link {
                    parent: 0,
                    call: None,
                    child,
                    name,
                });
            }
        }
    }
    links
}
