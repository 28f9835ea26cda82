//! The call ledger of one step: a call the router captured and the agent also reported is
//! recorded once.
//!
//! The rule is the model's ([calls seen on both
//! channels](crate::model#calls-seen-on-both-channels)); this file decides, for every
//! sighting of a call in either channel, what to write now. It records nothing itself.
//!
//! * **Router first.** The router's `tool.call` is written when its scope opens. An agent
//!   `tool.call` that arrives later for the same call is a sighting: nothing is written
//!   (its `tool_use` block is in the agent's message already), and the agent's `tool.result`
//!   for it is dropped too: the router's result is the call's result.
//! * **Agent first.** The agent's `tool.call` is *held*: the router may be about to claim
//!   it. The router scope that claims it writes its `tool.call` and the held one is dropped
//!   as a sighting. If the agent's `tool.result` arrives first, no router claimed the call
//!   (a router records a call before running it, and the agent sees the result only after
//!   it ran), so the held call and its result are written then, as `agent_emitted`. Calls
//!   still held when the step ends are written before its `step.completed`.
//! * **Matching.** Same call id; else, when the ids differ, the agent's call of the same
//!   tool (the router's name, or the agent's `mcp__<server>__<name>` for the router's
//!   `<name>`) with equal input, earliest first, each call matched once. The agent's id is
//!   written as `agent_call_id` on the router events written after the match.
//!
//! Holding delays the agent's `tool.call` events (not its messages: the `tool_use` block is
//! live in `message.assistant`) until the call's result. [`RouterTools`] narrows the hold to
//! the tools the executor's router serves, so calls the agent runs itself stay live.

use std::collections::{BTreeSet, VecDeque};
use std::sync::Arc;

// foldhash, not std's SipHash: a router call is hashed by id several times (its open, its
// result), and SipHash is several times slower on keys this short. The tables are randomly
// seeded (foldhash's RandomState), and their keys are the executor's call ids.
use foldhash::HashMap;

use serde_json::{Value, json};

use crate::model::{EventType, Timestamp, ToolPayload};

/// Which of the agent's calls an agent step holds back until the router has had its chance
/// to claim them (see [`AgentOptions::router_tools`](super::AgentOptions::router_tools)).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum RouterTools {
    /// Every call the agent reports may also come through the router (the default: no call
    /// is ever recorded twice, at the price of the agent's `tool.call` events arriving with
    /// their results).
    #[default]
    All,
    /// Only these tools go through the router (router names; the agent's
    /// `mcp__<server>__<name>` matches `<name>`); the agent's other calls are written live.
    Named(BTreeSet<String>),
    /// No call goes through the router: nothing is held. A router call that the agent had
    /// already reported is then recorded twice (readers still count it once).
    None,
}

impl RouterTools {
    /// The router serves exactly these tools.
    pub fn named<I, S>(names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        RouterTools::Named(names.into_iter().map(Into::into).collect())
    }

    fn holds(&self, agent_name: &str) -> bool {
        match self {
            RouterTools::All => true,
            RouterTools::None => false,
            RouterTools::Named(names) => names.iter().any(|name| same_tool(name, agent_name)),
        }
    }
}

/// Whether a router's tool name and an agent's name the same tool: equal, or the agent's
/// MCP spelling `mcp__<server>__<name>` of the router's `<name>`.
pub(super) fn same_tool(router: &str, agent: &str) -> bool {
    router_names(agent).any(|name| name == router)
}

/// One write the ledger decided on: a tool event of the step, with the time and path of
/// its sighting (`None`: now, and the step's own path).
#[derive(Debug)]
pub(super) struct Write {
    pub(super) event_type: EventType,
    pub(super) payload: ToolPayload,
    pub(super) time: Option<Timestamp>,
    pub(super) path: Option<String>,
}

/// Where and when the agent reported something: its event's time and path (a sub-agent's
/// calls sit under the agent step's path).
#[derive(Debug, Clone)]
pub(super) struct Sighting {
    pub(super) time: Timestamp,
    pub(super) path: String,
}

#[derive(Debug)]
struct RouterCall {
    /// When it opened, among the step's router calls.
    order: u64,
    name: Arc<str>,
    /// Its input, kept only where an agent's sighting may have to be matched by content.
    input: Value,
    agent_call_id: Option<String>,
    /// Not returned yet.
    open: bool,
}

/// The names under which an agent may report a router's tool: its own, and for an MCP
/// spelling `mcp__<server>__<name>`, every `<name>` the string could end with (a server's
/// name, never empty, may itself contain `__`). The one rule `same_tool` and the ledger's
/// lookup by name share.
fn router_names(agent: &str) -> impl Iterator<Item = &str> {
    let mcp = agent.strip_prefix("mcp__").unwrap_or("");
    // Every `__` after a non-empty server name, overlapping ones too (`a___b`).
    let suffixes = (1..mcp.len())
        .filter(move |&at| mcp.is_char_boundary(at) && mcp[at..].starts_with("__"))
        .map(move |at| &mcp[at + 2..])
        .filter(|name| !name.is_empty());
    std::iter::once(agent).chain(suffixes)
}

/// A router call open in a step no agent watches, at the slot of [`Ledger::open`] its
/// scope keeps.
#[derive(Debug)]
struct OpenCall {
    order: u64,
    name: Arc<str>,
    id: Arc<str>,
}

/// Where a router call of a step no agent watches is kept while it runs
/// ([`Ledger::router_call`]): its scope hands it back with the result.
pub(super) type Slot = usize;

#[derive(Debug)]
struct Held {
    payload: ToolPayload,
    seen: Sighting,
}

/// The ledger; see the module docs.
///
/// **Cost.** Every lookup is by id or by name, so a step with many calls costs the same
/// per call as one with few. A step with no agent keeps nothing of a call once it returned;
/// an agent step keeps each router call (id, name, input) until it ends, since the agent
/// may report it late.
#[derive(Debug, Default)]
pub(super) struct Ledger {
    /// Whether an agent reports calls in this step (an agent step).
    agent: bool,
    hold: RouterTools,
    /// Router calls by id: the open ones, and in an agent step every one. Names and ids
    /// are the call scope's own (`Arc<str>`), shared, not copied, by every table here.
    /// Which are open is a flag on each, not a second table: a B-tree of the open calls
    /// allocated its node at each call's open and freed it at its result (the step's one
    /// open call closed), about 300 instructions a call of the recorder bench's pairs
    /// (callgrind); a step that ends with calls open sorts them then.
    calls: HashMap<Arc<str>, RouterCall>,
    /// In a step no agent watches, the open router calls instead (`calls` stays empty):
    /// nothing of a call is needed once it returned, and each is closed at the slot its
    /// scope kept, without a hash of its id. A map insert and remove were about 300
    /// instructions of a call's ~6,800 in the recorder bench's pairs row (callgrind).
    open: Vec<Option<OpenCall>>,
    /// The slots of `open` free for the next call.
    free: Vec<Slot>,
    /// Router calls no agent sighting has matched, by tool name: (order, id), oldest first.
    unmatched: HashMap<Arc<str>, VecDeque<(u64, Arc<str>)>>,
    router_calls: u64,
    held: Vec<Held>,
    /// Agent call ids that are sightings of a router call, to the router call's id.
    sighted: HashMap<String, Arc<str>>,
    agent_calls: u64,
    agent_results_dropped: u64,
}

impl Ledger {
    /// Makes this an agent step's ledger: the agent reports calls, and those `hold` names
    /// are held for the router.
    pub(super) fn watch_agent(&mut self, hold: RouterTools) {
        self.agent = true;
        self.hold = hold;
        // Calls opened before are kept as an agent step keeps its calls (their scopes'
        // slots find nothing now, and they are closed by id).
        self.free.clear();
        for call in self.open.drain(..).flatten() {
            self.calls.insert(
                call.id,
                RouterCall {
                    order: call.order,
                    name: call.name,
                    input: Value::Null,
                    agent_call_id: None,
                    open: true,
                },
            );
        }
    }

    /// The agent reported a call.
    pub(super) fn agent_call(&mut self, payload: ToolPayload, seen: Sighting) -> Vec<Write> {
        self.agent_calls += 1;
        let router_id = if let Some((id, _)) = self.calls.get_key_value(payload.call_id.as_str()) {
            Some(Arc::clone(id))
        } else {
            self.unmatched_like(&payload)
        };
        if let Some(router_id) = router_id {
            self.unmatch(&router_id);
            if let Some(call) = self.calls.get_mut(&router_id)
                && *router_id != *payload.call_id
                && call.agent_call_id.is_none()
            {
                call.agent_call_id = Some(payload.call_id.clone());
            }
            self.sighted.insert(payload.call_id, router_id);
            return Vec::new();
        }
        if self.hold.holds(&payload.name) {
            self.held.push(Held { payload, seen });
            return Vec::new();
        }
        vec![Write {
            event_type: EventType::ToolCall,
            payload,
            time: Some(seen.time),
            path: Some(seen.path),
        }]
    }

    /// The agent reported a call's result.
    pub(super) fn agent_result(&mut self, payload: ToolPayload, seen: Sighting) -> Vec<Write> {
        if self.sighted.contains_key(&payload.call_id) {
            self.agent_results_dropped += 1;
            return Vec::new();
        }
        let mut writes = Vec::with_capacity(2);
        if let Some(at) = self
            .held
            .iter()
            .position(|held| held.payload.call_id == payload.call_id)
        {
            let held = self.held.remove(at);
            writes.push(Write {
                event_type: EventType::ToolCall,
                payload: held.payload,
                time: Some(held.seen.time),
                path: Some(held.seen.path),
            });
        }
        writes.push(Write {
            event_type: EventType::ToolResult,
            payload,
            time: Some(seen.time),
            path: Some(seen.path),
        });
        writes
    }

    /// The oldest unmatched router call the agent's call could be: the same tool, under
    /// one of the agent's names for it, with equal input.
    fn unmatched_like(&self, payload: &ToolPayload) -> Option<Arc<str>> {
        router_names(&payload.name)
            .filter_map(|name| self.unmatched.get(name))
            .flat_map(|queue| queue.iter())
            .filter(|(_, id)| self.calls.get(id).is_some_and(|c| c.input == payload.input))
            .min_by_key(|(order, _)| *order)
            .map(|(_, id)| Arc::clone(id))
    }

    /// Takes a router call out of the unmatched ones.
    fn unmatch(&mut self, router_id: &str) {
        let Some(call) = self.calls.get(router_id) else {
            return;
        };
        if let Some(queue) = self.unmatched.get_mut(&call.name) {
            queue.retain(|(_, id)| **id != *router_id);
        }
    }

    /// The router captured a call with `input`: the `agent_call_id` of its `tool.call`,
    /// when it claims a call the agent reported under another id, and in a step no agent
    /// watches the slot the call is kept at, for [`router_result`](Ledger::router_result).
    pub(super) fn router_call(
        &mut self,
        name: &Arc<str>,
        call_id: &Arc<str>,
        input: &Value,
    ) -> (Option<String>, Option<Slot>) {
        let order = self.router_calls;
        self.router_calls += 1;
        if !self.agent && self.held.is_empty() {
            // No agent reports calls here: none is held to be claimed, none will be
            // matched, and the call is kept only until it returns.
            let call = Some(OpenCall {
                order,
                name: Arc::clone(name),
                id: Arc::clone(call_id),
            });
            let slot = match self.free.pop() {
                Some(slot) => {
                    self.open[slot] = call;
                    slot
                }
                None => {
                    self.open.push(call);
                    self.open.len() - 1
                }
            };
            return (None, Some(slot));
        }
        let by_id = self
            .held
            .iter()
            .position(|held| *held.payload.call_id == **call_id);
        let by_content = || {
            self.held.iter().position(|held| {
                same_tool(name, &held.payload.name) && held.payload.input == *input
            })
        };
        let claimed = by_id.or_else(by_content).map(|pos| self.held.remove(pos));
        let agent_call_id = claimed
            .as_ref()
            .map(|held| held.payload.call_id.clone())
            .filter(|id| **id != **call_id);
        if let Some(held) = &claimed {
            self.sighted
                .insert(held.payload.call_id.clone(), Arc::clone(call_id));
        }
        if self.agent && claimed.is_none() {
            let queue = self.unmatched.entry(Arc::clone(name)).or_default();
            queue.push_back((order, Arc::clone(call_id)));
        }
        self.calls.insert(
            Arc::clone(call_id),
            RouterCall {
                order,
                name: Arc::clone(name),
                input: if self.agent {
                    input.clone()
                } else {
                    Value::Null
                },
                agent_call_id: agent_call_id.clone(),
                open: true,
            },
        );
        (agent_call_id, None)
    }

    /// The router call `call_id`, kept at `slot` when it opened, returned: closes it and
    /// gives the agent's id for it, when the agent reported it under another id. `None`
    /// when no such call is open (its step ended first and wrote its result).
    pub(super) fn router_result(
        &mut self,
        call_id: &str,
        slot: Option<Slot>,
    ) -> Option<Option<String>> {
        let is_it = |call: &Option<OpenCall>| call.as_ref().is_some_and(|c| *c.id == *call_id);
        // Its own slot, else (a slot not handed back) found by id among the open ones.
        let kept = slot
            .filter(|&slot| self.open.get(slot).is_some_and(is_it))
            .or_else(|| self.open.iter().position(is_it));
        if let Some(slot) = kept
            && let Some(call) = self.open.get_mut(slot)
        {
            *call = None;
            self.free.push(slot);
            return Some(None);
        }
        if self.agent {
            let call = self.calls.get_mut(call_id)?;
            if !call.open {
                return None;
            }
            call.open = false;
            Some(call.agent_call_id.clone())
        } else {
            // No agent will report it: nothing of it is needed any more, and a step with
            // no agent keeps only its open calls.
            let call = self.calls.remove(call_id)?;
            Some(call.agent_call_id)
        }
    }

    /// The router calls still open, as (name, call id, slot), in the order they opened.
    pub(super) fn open_router_calls(&self) -> Vec<(Arc<str>, Arc<str>, Option<Slot>)> {
        let mut open: Vec<_> = self
            .calls
            .iter()
            .filter(|(_, call)| call.open)
            .map(|(id, call)| (call.order, Arc::clone(&call.name), Arc::clone(id), None))
            .collect();
        open.extend(self.open.iter().enumerate().filter_map(|(slot, call)| {
            call.as_ref().map(|call| {
                let (name, id) = (Arc::clone(&call.name), Arc::clone(&call.id));
                (call.order, name, id, Some(slot))
            })
        }));
        open.sort_unstable_by_key(|(order, ..)| *order);
        open.into_iter()
            .map(|(_, name, id, slot)| (name, id, slot))
            .collect()
    }

    /// The agent's calls still held when the step ends: no router claimed them and no
    /// result came, so they are written as they were reported.
    pub(super) fn drain_held(&mut self) -> Vec<Write> {
        self.held
            .drain(..)
            .map(|held| Write {
                event_type: EventType::ToolCall,
                payload: held.payload,
                time: Some(held.seen.time),
                path: Some(held.seen.path),
            })
            .collect()
    }

    /// What the step's result says of its calls: `{"calls": router calls, "agent_calls":
    /// calls the agent reported, "agent_sightings": the agent's calls that were router
    /// calls, recorded once, "agent_results_dropped": their results}`.
    pub(super) fn summary(&self) -> Value {
        json!({
            "calls": self.router_calls,
            "agent_calls": self.agent_calls,
            "agent_sightings": self.sighted.len(),
            "agent_results_dropped": self.agent_results_dropped,
        })
    }

    /// Whether anything went through the router or the ledger at all.
    pub(super) fn is_empty(&self) -> bool {
        self.router_calls == 0 && self.sighted.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Fidelity;

    fn agent(name: &str, id: &str, input: Value) -> ToolPayload {
        ToolPayload::call(name, id, input, Fidelity::AgentEmitted)
    }

    fn result(id: &str) -> ToolPayload {
        let mut payload = agent("", id, Value::Null);
        payload.output = json!("out").into();
        payload
    }

    fn kinds(writes: &[Write]) -> Vec<(String, String)> {
        writes
            .iter()
            .map(|w| (w.event_type.to_string(), w.payload.call_id.clone()))
            .collect()
    }

    fn now() -> Sighting {
        Sighting {
            time: Timestamp::parse("2026-11-22T10:00:00Z").unwrap(),
            path: "review".into(),
        }
    }

    fn ledger(hold: RouterTools) -> Ledger {
        let mut ledger = Ledger::default();
        ledger.watch_agent(hold);
        ledger
    }

    #[test]
    fn router_first_the_agent_s_sighting_and_its_result_are_dropped() {
        let mut ledger = ledger(RouterTools::All);
        let agent_call_id = ledger
            .router_call(&"Read".into(), &"toolu_1".into(), &json!({"path": "a"}))
            .0;
        assert_eq!(agent_call_id, None);
        assert!(
            ledger
                .agent_call(agent("Read", "toolu_1", json!({"path": "a"})), now())
                .is_empty()
        );
        assert_eq!(ledger.router_result("toolu_1", None), Some(None));
        assert_eq!(ledger.router_result("toolu_1", None), None, "closed once");
        assert!(ledger.agent_result(result("toolu_1"), now()).is_empty());
        assert_eq!(
            ledger.summary(),
            json!({"calls": 1, "agent_calls": 1, "agent_sightings": 1, "agent_results_dropped": 1})
        );
    }

    #[test]
    fn agent_first_the_held_call_is_claimed_by_the_router() {
        let mut ledger = ledger(RouterTools::All);
        assert!(
            ledger
                .agent_call(agent("Read", "toolu_1", json!({})), now())
                .is_empty()
        );
        let agent_call_id = ledger
            .router_call(&"Read".into(), &"toolu_1".into(), &json!({}))
            .0;
        assert_eq!(agent_call_id, None);
        assert!(ledger.agent_result(result("toolu_1"), now()).is_empty());
        assert!(ledger.drain_held().is_empty());
    }

    #[test]
    fn an_unclaimed_held_call_is_written_with_its_result() {
        let mut ledger = ledger(RouterTools::All);
        assert!(
            ledger
                .agent_call(agent("Bash", "toolu_2", json!({})), now())
                .is_empty()
        );
        let writes = ledger.agent_result(result("toolu_2"), now());
        assert_eq!(
            kinds(&writes),
            [
                ("tool.call".into(), "toolu_2".into()),
                ("tool.result".into(), "toolu_2".into())
            ]
        );
    }

    #[test]
    fn different_ids_match_by_tool_and_input_and_name_the_agent_s_id() {
        let mut ledger = ledger(RouterTools::All);
        // Agent first, under its MCP name.
        ledger.agent_call(
            agent("mcp__awf__read_file", "toolu_9", json!({"p": 1})),
            now(),
        );
        let agent_call_id = ledger
            .router_call(&"read_file".into(), &"7".into(), &json!({"p": 1}))
            .0;
        assert_eq!(agent_call_id.as_deref(), Some("toolu_9"));
        assert_eq!(
            ledger.router_result("7", None).flatten().as_deref(),
            Some("toolu_9")
        );
        // Router first: the agent's later sighting names the id for the result.
        ledger.router_call(&"read_file".into(), &"8".into(), &json!({"p": 2}));
        ledger.agent_call(
            agent("mcp__awf__read_file", "toolu_10", json!({"p": 2})),
            now(),
        );
        assert_eq!(
            ledger.router_result("8", None).flatten().as_deref(),
            Some("toolu_10")
        );
        // Different input: not the same call.
        ledger.router_call(&"read_file".into(), &"9".into(), &json!({"p": 3}));
        assert!(
            ledger
                .agent_call(agent("read_file", "toolu_11", json!({"p": 4})), now())
                .is_empty()
        );
        assert_eq!(
            kinds(&ledger.drain_held()),
            [("tool.call".into(), "toolu_11".into())]
        );
    }

    #[test]
    fn named_router_tools_leave_the_agent_s_own_calls_live() {
        let mut ledger = ledger(RouterTools::named(["read_file"]));
        let writes = ledger.agent_call(agent("Bash", "toolu_1", json!({})), now());
        assert_eq!(kinds(&writes), [("tool.call".into(), "toolu_1".into())]);
        let writes = ledger.agent_call(agent("mcp__x__read_file", "toolu_2", json!({})), now());
        assert!(writes.is_empty(), "held for the router");
    }

    /// A step no agent watches keeps its open calls at slots: each closes once, by its
    /// slot, a freed slot is taken again, the calls still open are listed in the order
    /// they opened, and an agent watching later finds them by id.
    #[test]
    fn a_step_without_an_agent_keeps_its_open_calls_at_slots() {
        let mut ledger = Ledger::default();
        let name: Arc<str> = "Bash".into();
        let ids: Vec<Arc<str>> = ["a", "b", "c"].map(Arc::from).into();
        let slots: Vec<Option<Slot>> = ids
            .iter()
            .map(|id| {
                let (agent_call_id, slot) = ledger.router_call(&name, id, &json!({}));
                assert_eq!(agent_call_id, None);
                assert!(slot.is_some());
                slot
            })
            .collect();
        assert_eq!(ledger.router_result("b", slots[1]), Some(None));
        assert_eq!(ledger.router_result("b", slots[1]), None, "closed once");
        let (_, d) = ledger.router_call(&name, &"d".into(), &json!({}));
        assert_eq!(d, slots[1], "b's slot taken again");
        let open: Vec<(String, Option<Slot>)> = ledger
            .open_router_calls()
            .into_iter()
            .map(|(_, id, slot)| (id.to_string(), slot))
            .collect();
        assert_eq!(
            open,
            [
                ("a".into(), slots[0]),
                ("c".into(), slots[2]),
                ("d".into(), d)
            ]
        );
        assert_eq!(ledger.router_result("a", d), Some(None), "found by id");
        assert_eq!(ledger.router_result("a", slots[0]), None, "closed once");
        ledger.watch_agent(RouterTools::All);
        assert!(
            ledger
                .open_router_calls()
                .iter()
                .all(|(.., slot)| slot.is_none())
        );
        assert_eq!(ledger.router_result("c", slots[2]), Some(None), "by id");
        assert_eq!(ledger.router_result("c", None), None, "closed once");
        assert_eq!(ledger.open_router_calls().len(), 1, "d");
        assert_eq!(ledger.summary()["calls"], 4);
    }

    #[test]
    fn mcp_names_match_only_their_own_tool() {
        assert!(same_tool("read", "mcp__srv__read"));
        assert!(same_tool("read", "read"));
        assert!(!same_tool("read", "mcp__srv__read_file"));
        assert!(!same_tool("read", "srv__read"));
    }
}
