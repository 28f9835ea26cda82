//! Calls seen on both channels: the readers' side of the model's rule, in one place.
//!
//! [`Calls`] decides, for every `tool.call` and `tool.result`, whether it is a call or a
//! sighting of one; [`Stats`](super::Stats), the [`tree`](super::tree), the AgentLog export,
//! the OTLP mapper and `axt check` all ask it. It owns that rule and nothing else: it keeps no event.

use std::collections::HashMap;

use crate::model::{EventType, ExchangeEvent, Fidelity, Payload, ToolPayload};

/// A call within its run: the same key for every event of the call, whatever id it came
/// under. Unique within a run, not across runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CallKey(u32);

/// What a `tool.call` or `tool.result` is, by the rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The call (its `tool.call`) or its outcome (its `tool.result`): count it.
    Call,
    /// An `agent_emitted` event of a call the router captured: count nothing.
    Sighting,
    /// A second `tool.call` of the same side for one call id: counted as another call
    /// (the file says there were two), and worth a warning.
    Repeated,
}

/// One tool event, judged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seen {
    /// The call it belongs to.
    pub call: CallKey,
    /// What it is.
    pub verdict: Verdict,
    /// Whether it is the router's (`router` fidelity).
    pub router: bool,
    /// A call counted before that this `router` event shows to be a sighting of its call:
    /// the consumer takes it back.
    pub demoted: Option<Demoted>,
    /// A `tool.result` counted as a call's outcome ([`Verdict::Call`]) of which no
    /// `tool.call` was read before it, on either channel: a result without its call, which
    /// a consumer counts apart rather than as a call that failed or succeeded.
    pub without_call: bool,
}

/// An agent's call counted as a call before the router's copy of it was read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Demoted {
    /// Its key: the router's call's own when the ids are equal, else the agent id's old
    /// key, which now resolves to the router's call.
    pub call: CallKey,
    /// The tool name the agent reported it under.
    pub name: String,
    /// Its `tool.result`, if one was read: whether it failed.
    pub failed: Option<bool>,
}

/// Whether a `tool.*` event is a call or a sighting, once the whole run was seen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Settled {
    /// Part of the call; `sighted` when the agent also reported it.
    Call {
        /// The agent reported the call the router captured.
        sighted: bool,
    },
    /// An `agent_emitted` event of a call the router captured.
    Sighting,
}

const CALL: u8 = 1;
const RESULT: u8 = 2;
const FAILED: u8 = 4;

/// What one side (the router, or the agent) showed of one call.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Entry {
    router: u8,
    agent: u8,
    /// The agent's tool name, an index into [`Calls::names`].
    agent_name: u32,
}

impl Entry {
    fn both(&self) -> bool {
        self.router & CALL != 0 && self.agent & CALL != 0
    }

    fn agent_failed(&self) -> Option<bool> {
        (self.agent & RESULT != 0).then_some(self.agent & FAILED != 0)
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct RunCalls {
    /// Call ids and `agent_call_id` aliases to their entry.
    ids: HashMap<Box<str>, u32>,
    entries: Vec<Entry>,
}

impl RunCalls {
    fn key(&mut self, id: &str) -> u32 {
        if let Some(&key) = self.ids.get(id) {
            return key;
        }
        let key = u32::try_from(self.entries.len()).expect("fewer than 2^32 calls in a run");
        self.entries.push(Entry::default());
        self.ids.insert(id.into(), key);
        key
    }
}

/// The rule for calls seen on both channels, applied to events fed in file order.
///
/// An executor may capture a call at its tool router (fidelity `router`) that the agent also
/// reports in its own output (`agent_emitted`). The wire format
/// ([`model`](crate::model#calls-seen-on-both-channels)) says how readers count it: once per
/// call id and run, the `router` events being the call and the `agent_emitted` ones a
/// *sighting* of it. `Calls` applies that rule to events fed in file order, and every
/// reader that counts calls ([`Stats`](super::Stats), the [`tree`](super::tree), the
/// AgentLog export, the OTLP mapper, `axt check`) asks it rather than deciding for itself.
///
/// # The rule as implemented
///
/// * **One call per id and run.** Events are grouped by `run_id`, then by `call_id`. A
///   `router` payload's `agent_call_id` names the agent's id for the same call: from then
///   on that id belongs to the router's call too, whether the agent's events came before
///   or come after.
/// * **Router first.** An `agent_emitted` `tool.call` or `tool.result` of a call whose
///   `router` `tool.call` was already read is a [`Verdict::Sighting`]: it counts for
///   nothing (a consumer may note that the agent also reported the call).
/// * **Agent first** (the hard case for one pass). The `agent_emitted` `tool.call` is read
///   before anyone knows a router copy will follow, so it is a [`Verdict::Call`] and
///   counted. When the router's `tool.call` arrives, the call is *upgraded*: the router's
///   event is the call, and [`Seen::demoted`] tells the consumer which call it counted
///   before (its key, the agent's tool name, whether the agent's result was read and
///   failed), so that it takes it back. The totals after the last event count the call
///   once, with the router's outcome; a consumer that stops part-way has counted each call
///   read so far once too, with the best fidelity known then.
/// * **Ids that differ, named late.** A router writes `agent_call_id` only on its events
///   after it matched the agent's call, so the alias may arrive on the router's
///   `tool.result`, after both calls were counted apart: the two are merged then, and the
///   agent's is demoted as above.
/// * **Only `router` is the router.** `agent_emitted` and any fidelity outside the
///   vocabulary are reports of a call, not its capture.
/// * **Repeats.** A second `tool.call` of the *same* side (router or not) for one id is a
///   [`Verdict::Repeated`]: the file says there were two calls, so they are counted as
///   two, and the consumer should warn (`axt check` does). Both sides for one id is legal.
///
/// # Cost
///
/// One pass, nothing but tool events looked at, nothing of an event kept but its ids: per
/// run, one map entry per call id (and per `agent_call_id` alias) with a few flags, and
/// the distinct tool names once. Memory is proportional to the number of calls, never to
/// the file's size.
///
/// ```
/// use axt::model::{EventType, ExchangeEvent, Fidelity, Payload, ToolPayload};
/// use axt::read::{Calls, Verdict};
/// use serde_json::json;
///
/// let call = |fidelity| {
///     let payload = ToolPayload::call("Read", "toolu_1", json!({"path": "a"}), fidelity);
///     ExchangeEvent::new("run", EventType::ToolCall, "agent", Payload::Tool(payload))
/// };
/// let mut calls = Calls::default();
/// // The agent reports the call first: it counts, until the router's copy arrives.
/// let agent = calls.see(&call(Fidelity::AgentEmitted)).unwrap();
/// assert_eq!(agent.verdict, Verdict::Call);
/// let router = calls.see(&call(Fidelity::Router)).unwrap();
/// assert_eq!(router.verdict, Verdict::Call);
/// let demoted = router.demoted.unwrap();
/// assert_eq!((demoted.call, demoted.name.as_str()), (agent.call, "Read"));
/// assert_eq!(calls.on_both_channels(), 1);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Calls {
    runs: HashMap<Box<str>, RunCalls>,
    /// Tool names the agent reported, once each.
    names: Vec<Box<str>>,
    name_ids: HashMap<Box<str>, u32>,
    both: u64,
}

impl Calls {
    /// Whether a call of this `tool.*` event's id (or `agent_call_id`) was seen in its run:
    /// a reader that keeps no more calls (the tree, past its limit) asks before
    /// [`see`](Calls::see), which would remember a new one.
    pub fn knows(&self, event: &ExchangeEvent) -> bool {
        let Some((_, tool)) = tool_event(event) else {
            return false;
        };
        self.runs.get(event.run_id.as_str()).is_some_and(|run| {
            run.ids.contains_key(tool.call_id.as_str())
                || tool
                    .agent_call_id
                    .as_deref()
                    .is_some_and(|id| run.ids.contains_key(id))
        })
    }

    /// Judges one event: `None` unless it is a `tool.call` or `tool.result` with a tool
    /// payload.
    pub fn see(&mut self, event: &ExchangeEvent) -> Option<Seen> {
        let (is_call, tool) = tool_event(event)?;
        let router = tool.fidelity == Fidelity::Router;
        let failed = if tool.error.is_some() || tool.exit_code.is_some_and(|c| c != 0) {
            FAILED
        } else {
            0
        };
        let name = if router || !is_call {
            0
        } else {
            self.name(&tool.name)
        };
        let run = match self.runs.get_mut(event.run_id.as_str()) {
            Some(run) => run,
            None => self.runs.entry(event.run_id.as_str().into()).or_default(),
        };
        let key = run.key(&tool.call_id);
        let before = run.entries[key as usize].both();
        let mut demoted = None;
        let verdict = if router {
            if let Some(alias) = tool.agent_call_id.as_deref()
                && alias != tool.call_id
            {
                demoted = merge(run, key, alias);
            }
            let entry = &mut run.entries[key as usize];
            if is_call {
                let repeated = entry.router & CALL != 0;
                if !repeated && entry.agent & CALL != 0 && demoted.is_none() {
                    // Agent first, same id: the call counted so far was the agent's.
                    demoted = Some((key, entry.agent_name, entry.agent_failed()));
                }
                entry.router = CALL;
                if repeated {
                    Verdict::Repeated
                } else {
                    Verdict::Call
                }
            } else {
                entry.router |= RESULT | failed;
                Verdict::Call
            }
        } else {
            let entry = &mut run.entries[key as usize];
            let sighting = entry.router & CALL != 0;
            let repeated = is_call && entry.agent & CALL != 0;
            if is_call {
                entry.agent = CALL;
                entry.agent_name = name;
            } else {
                entry.agent |= RESULT | failed;
            }
            match (sighting, repeated) {
                (true, _) => Verdict::Sighting,
                (false, true) => Verdict::Repeated,
                (false, false) => Verdict::Call,
            }
        };
        let entry = run.entries[key as usize];
        if !before && entry.both() {
            self.both += 1;
        }
        let without_call =
            !is_call && verdict == Verdict::Call && (entry.router | entry.agent) & CALL == 0;
        let demoted = demoted.map(|(call, name, failed)| Demoted {
            call: CallKey(call),
            name: self.names[name as usize].to_string(),
            failed,
        });
        Some(Seen {
            call: CallKey(key),
            without_call,
            verdict,
            router,
            demoted,
        })
    }

    /// What a `tool.*` event of a run fed whole to [`Calls::see`] is, now that every
    /// sighting is known (the agent-first upgrades included): for a consumer that holds the
    /// run, such as the AgentLog export. `None` for any other event, or one not seen.
    pub fn settled(&self, event: &ExchangeEvent) -> Option<Settled> {
        let (_, tool) = tool_event(event)?;
        let run = self.runs.get(event.run_id.as_str())?;
        let entry = run.entries[*run.ids.get(tool.call_id.as_str())? as usize];
        Some(if tool.fidelity == Fidelity::Router {
            Settled::Call {
                sighted: entry.agent & CALL != 0,
            }
        } else if entry.router & CALL != 0 {
            Settled::Sighting
        } else {
            Settled::Call { sighted: false }
        })
    }

    /// Calls seen on both channels so far: calls with a `router` and an `agent_emitted`
    /// `tool.call`, each counted once.
    pub fn on_both_channels(&self) -> u64 {
        self.both
    }

    fn name(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.name_ids.get(name) {
            return id;
        }
        let id = u32::try_from(self.names.len()).expect("fewer than 2^32 tool names");
        self.names.push(name.into());
        self.name_ids.insert(name.into(), id);
        id
    }
}

/// A router payload of call `key` names `alias` as the agent's id for it. Points the alias
/// at `key`; when the agent's events were read under the alias before, as a call of its
/// own, merges them into `key` and gives that call back to be demoted.
fn merge(run: &mut RunCalls, key: u32, alias: &str) -> Option<(u32, u32, Option<bool>)> {
    let Some(&other) = run.ids.get(alias) else {
        run.ids.insert(alias.into(), key);
        return None;
    };
    let (theirs, mine) = (run.entries[other as usize], run.entries[key as usize]);
    // Two router calls, or an agent side on both: not one call seen twice; left apart.
    if other == key || theirs.router != 0 || mine.agent != 0 {
        return None;
    }
    run.ids.insert(alias.into(), key);
    run.entries[other as usize] = Entry::default();
    let entry = &mut run.entries[key as usize];
    entry.agent = theirs.agent;
    entry.agent_name = theirs.agent_name;
    (theirs.agent & CALL != 0).then(|| (other, theirs.agent_name, theirs.agent_failed()))
}

fn tool_event(event: &ExchangeEvent) -> Option<(bool, &ToolPayload)> {
    let is_call = match event.event_type {
        EventType::ToolCall => true,
        EventType::ToolResult => false,
        _ => return None,
    };
    match &event.payload {
        Payload::Tool(tool) => Some((is_call, tool)),
        _ => None,
    }
}
