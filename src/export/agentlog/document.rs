//! The AgentLog document around the events: status, agent, project, metrics (counts, files,
//! tools, models, tokens and cost added up with [`Spend`]), relationships, redactions and
//! axt's own properties.
//!
//! This file owns the root object. It must not map events (`events.rs` did).

use serde::Deserialize;
use serde_json::json;

use super::events::Exporter;
use super::load::{agent_metas, imported, run_meta};
use super::wire::{
    AgentInfo, Document, Metrics, Project, Properties, Redaction, Relationships, SPEC_VERSION,
    TokenUsage,
};
use crate::model::{EventType, Payload, Provider, RunMeta, RunStatus, Usage};
use crate::read::Spend;

/// The document of everything `exporter` mapped; its root run is the last one read.
pub(super) fn document(exporter: Exporter) -> Document {
    // Children finish first: the root run is the last one read.
    let root = exporter.runs.last().expect("the root run is read");
    let meta = run_meta(root);
    let first = root.events.first().expect("load refuses an empty run");
    let last = root.events.last().expect("load refuses an empty run");
    // A run that never completed has no metadata: its `run.started` names the provider.
    let provider = meta
        .as_ref()
        .map(|meta| meta.provider.as_str().to_owned())
        .or_else(|| {
            root.events
                .iter()
                .find(|e| e.event_type == EventType::RunStarted)
                .and_then(|e| match &e.payload {
                    Payload::Step(s) => Some(s.name.clone()),
                    _ => None,
                })
        })
        .unwrap_or_default();
    let (name, vendor) = match provider.parse::<Provider>() {
        // AgentLog's `agent.provider` is the vendor's lower-case name.
        Ok(provider) => (provider.agent_name(), provider.vendor().as_str()),
        Err(_) => ("axt", "unknown"),
    };
    // An adapter that reads a family of agents names the one that wrote the run.
    let name = meta
        .as_ref()
        .and_then(|meta| meta.agent.as_deref())
        .unwrap_or(name)
        .to_owned();
    let completed = root
        .events
        .iter()
        .rev()
        .find(|e| e.event_type == EventType::RunCompleted);
    let status = match completed.map(|e| &e.payload) {
        None => "interrupted",
        Some(Payload::Step(s))
            if s.error.is_some()
                || RunMeta::of(s).is_some_and(|meta| meta.status == RunStatus::Failed) =>
        {
            "failed"
        }
        Some(_) => "completed",
    };
    // A session resumed by several runs of the tree is counted once (`Spend`).
    let mut spend = Spend::default();
    let mut off_chain = Usage::default();
    let mut problems = 0;
    let mut runs = Vec::new();
    for run in &exporter.runs {
        for meta in agent_metas(run) {
            spend.add(&meta);
            // The importer's account: what an imported session spent off its thread.
            if let Some(spent) = imported(Some(&meta), "off_chain_usage")
                .and_then(|spent| Usage::deserialize(spent).ok())
            {
                off_chain.add(&spent);
            }
        }
        problems += run.problem_count;
        runs.push(
            json!({"runId": run.run_id, "parentRunId": run.parent_run_id,
            "provider": provider, "events": run.events.len()}),
        );
    }
    let meta = meta.as_ref();
    let duration_ms = meta.and_then(|meta| meta.duration_ms).or_else(|| {
        let a = first.timestamp.unix_nanos().ok()?;
        let b = last.timestamp.unix_nanos().ok()?;
        (b >= a).then(|| ((b - a) / 1_000_000) as u64)
    });
    let children: Vec<String> = root
        .events
        .iter()
        .filter(|e| e.event_type == EventType::CallWorkflowStarted)
        .filter_map(|e| e.child_run_id.clone())
        .collect();
    let mut properties = Properties::new();
    properties.insert("axt:runs".into(), runs.into());
    properties.insert(
        "axt:exporter".into(),
        format!("axt {}", env!("CARGO_PKG_VERSION")).into(),
    );
    if off_chain != Usage::default() {
        properties.insert(
            "axt:offChainUsage".into(),
            json!({"inputTokens": off_chain.input_tokens,
            "outputTokens": off_chain.output_tokens, "cacheReadTokens": off_chain.cache_read_tokens,
            "cacheWriteTokens": off_chain.cache_write_tokens}),
        );
    }
    if problems > 0 {
        properties.insert("axt:readProblems".into(), problems.into());
    }
    if !exporter.notes.is_empty() {
        properties.insert("axt:notes".into(), exporter.notes.clone().into());
    }
    if let Some(session) = meta.and_then(|meta| meta.session_id.as_ref()) {
        properties.insert("axt:sessionId".into(), session.as_str().into());
    }
    let project = exporter.root.as_ref().map(|root| {
        let name = root
            .trim_end_matches(['/', '\\'])
            .rsplit(['/', '\\'])
            .next()
            .unwrap_or(root);
        Project {
            name: name.to_owned(),
            working_directory: root.clone(),
            branch: imported(meta, "git_branch").cloned(),
            properties: Properties::new(),
        }
    });
    let usage = spend.tokens;
    if spend.repeated > 0 {
        properties.insert("axt:repeatedSessionTotals".into(), spend.repeated.into());
    }
    let mut metric_properties = Properties::new();
    metric_properties.insert("axt:durationMs".into(), duration_ms.into());
    let redactions = exporter.redact.then(|| {
        vec![Redaction {
            category: "api_key",
            count: exporter.redactions,
            redacted_by: "axt",
        }]
    });
    Document {
        spec_version: SPEC_VERSION,
        id: root.run_id.clone(),
        start_time: first.timestamp.as_str().to_owned(),
        end_time: last.timestamp.as_str().to_owned(),
        status,
        agent: AgentInfo {
            name,
            version: meta.and_then(|meta| meta.provider_version.clone()),
            model: meta.and_then(|meta| meta.model.clone()),
            provider: vendor,
            properties: Properties::new(),
        },
        project,
        metrics: Metrics {
            message_count: exporter.messages,
            tool_call_count: exporter.tool_calls,
            files_touched_count: exporter.files.len(),
            duration_minutes: duration_ms.map(|ms| (ms + 30_000) / 60_000),
            token_usage: TokenUsage {
                input_tokens: usage.input,
                output_tokens: usage.output,
                cache_read_tokens: usage.cache_read,
                cache_write_tokens: usage.cache_write,
                reasoning_tokens: usage.reasoning,
            },
            estimated_cost_usd: spend.cost_usd,
            files_touched: exporter.files.iter().cloned().collect(),
            tools_used: exporter.tools.iter().cloned().collect(),
            models_used: exporter.models.iter().cloned().collect(),
            properties: metric_properties,
        },
        relationships: Relationships {
            parent_session: root.parent_run_id.clone(),
            child_sessions: children,
            properties: Properties::new(),
        },
        redactions,
        properties,
        events: exporter.events,
    }
}
