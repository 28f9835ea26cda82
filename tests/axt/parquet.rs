//! The Parquet dataset (`axt export --to parquet`): exact rows of hand-made runs read back
//! with arrow-rs's reader, the incremental rules (the same input writes nothing, a grown one
//! adds exactly the new and changed runs), the journal (a dead export is finished or
//! discarded), two exports at once, the published page against the schema, and the whole
//! corpus read back by real engines, DuckDB and Spark, against `axt stats --json`.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use arrow_array::{
    Array, BooleanArray, Float64Array, Int64Array, RecordBatch, StringArray,
    TimestampMicrosecondArray,
};
use axt::export::parquet::{DatasetOptions, TABLES, export_dataset};
use axt::import::claude_code::{convert, write};
use axt::normalize::{Options, Provider};
use axt::record::RecorderOptions;
use axt::transcribe::{EventOptions, RecordingSink, Transcriber};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use serde_json::{Value, json};

use crate::golden_import::sessions;
use crate::support::{
    Outcome, PROVIDER_INPUTS, ROOT, TempDir, fixtures, normalize_corpus, now, read_corpus, root,
};

fn axt(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_axt"))
        .args(args)
        .current_dir(ROOT)
        .stdin(Stdio::null())
        .output()
        .expect("axt runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Every row of `table` in the dataset, each a JSON object, sorted by their text.
fn rows(dataset: &Path, table: &str) -> Vec<Value> {
    let mut rows = Vec::new();
    let dir = dataset.join(table);
    if !dir.exists() {
        return rows;
    }
    for file in crate::support::walk(&dir) {
        let reader = ParquetRecordBatchReaderBuilder::try_new(fs::File::open(&file).unwrap())
            .unwrap()
            .build()
            .unwrap();
        for batch in reader {
            rows.extend(batch_rows(&batch.unwrap()));
        }
    }
    rows.sort_by_key(Value::to_string);
    rows
}

fn batch_rows(batch: &RecordBatch) -> Vec<Value> {
    let schema = batch.schema();
    (0..batch.num_rows())
        .map(|row| {
            let mut object = serde_json::Map::new();
            for (field, column) in schema.fields().iter().zip(batch.columns()) {
                let any = column.as_any();
                let value = if column.is_null(row) {
                    Value::Null
                } else if let Some(a) = any.downcast_ref::<StringArray>() {
                    json!(a.value(row))
                } else if let Some(a) = any.downcast_ref::<Int64Array>() {
                    json!(a.value(row))
                } else if let Some(a) = any.downcast_ref::<Float64Array>() {
                    json!(a.value(row))
                } else if let Some(a) = any.downcast_ref::<BooleanArray>() {
                    json!(a.value(row))
                } else if let Some(a) = any.downcast_ref::<TimestampMicrosecondArray>() {
                    json!(a.value(row))
                } else {
                    panic!("{}: a column type the schema does not use", field.name())
                };
                object.insert(field.name().clone(), value);
            }
            Value::Object(object)
        })
        .collect()
}

/// The `.parquet` files of a dataset, with their bytes.
fn files(dataset: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    crate::support::walk(dataset)
        .into_iter()
        .filter(|f| f.extension().is_some_and(|e| e == "parquet"))
        .map(|f| {
            (
                f.strip_prefix(dataset).unwrap().to_owned(),
                fs::read(&f).unwrap(),
            )
        })
        .collect()
}

fn export(inputs: &[&Path], out: &Path, content: bool) -> axt::export::parquet::DatasetReport {
    let files: Vec<PathBuf> = inputs.iter().map(|p| p.to_path_buf()).collect();
    let options = DatasetOptions {
        content,
        ..DatasetOptions::default()
    };
    export_dataset(&files, out, &options).unwrap()
}

const RUN: &str = concat!(
    r#"{"seq":1,"run_id":"r1","type":"run.started","path":"","iteration":0,"timestamp":"2026-06-08T08:00:00Z","payload":{"name":"release","kind":"workflow"}}"#,
    "\n",
    r#"{"seq":2,"run_id":"r1","type":"step.started","path":"build","iteration":0,"timestamp":"2026-06-08T08:00:01Z","payload":{"name":"build","kind":"command"}}"#,
    "\n",
    r#"{"seq":3,"run_id":"r1","type":"tool.call","path":"build","iteration":0,"timestamp":"2026-06-08T08:00:02Z","payload":{"name":"Bash","call_id":"c1","input":{"command":"make"},"output":null,"fidelity":"router"}}"#,
    "\n",
    r#"{"seq":4,"run_id":"r1","type":"tool.result","path":"build","iteration":0,"timestamp":"2026-06-08T08:00:05Z","payload":{"name":"Bash","call_id":"c1","input":null,"output":"make: *** [all] Error 2 sk-ant-api03-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA","error":"exit status 2","fidelity":"router","exit_code":2,"duration_ms":2900}}"#,
    "\n",
    r#"{"seq":5,"run_id":"r1","type":"step.completed","path":"build","iteration":0,"timestamp":"2026-06-08T08:00:06Z","payload":{"name":"build","kind":"command","error":"make failed","duration_ms":5000}}"#,
    "\n",
    "not json\n",
    r#"{"seq":7,"run_id":"r1","type":"step.started","path":"review","iteration":0,"timestamp":"2026-06-08T08:00:07Z","payload":{"name":"review","kind":"agent"}}"#,
    "\n",
    r#"{"seq":8,"run_id":"r1","type":"message.user","path":"review","iteration":0,"timestamp":"2026-06-08T08:00:07Z","payload":{"role":"user","blocks":[{"type":"text","fidelity":"agent_emitted","text":"Be brief.","system_prompt":true},{"type":"text","fidelity":"agent_emitted","text":"Review it."}]}}"#,
    "\n",
    r#"{"seq":9,"run_id":"r1","type":"message.assistant","path":"review","iteration":0,"timestamp":"2026-06-08T08:00:09Z","payload":{"role":"assistant","blocks":[{"type":"thinking","fidelity":"agent_emitted","thinking":"hm"},{"type":"text","fidelity":"agent_emitted","text":"LGTM"}],"message_id":"m1"}}"#,
    "\n",
    r#"{"seq":10,"run_id":"r1","type":"step.completed","path":"review","iteration":0,"timestamp":"2026-06-08T08:00:10Z","payload":{"name":"review","kind":"agent","result":{"provider":"claude","provider_version":"2.1.19","model":"claude-sonnet-4-6","usage":{"input_tokens":10,"output_tokens":5,"cache_read_tokens":100,"cache_write_tokens":20,"reasoning_tokens":0},"cost_usd":0.25,"status":"completed","report":{"records":{"assistant":{"seen":1,"mapped":1,"unknown_fields":{"mood":1}}},"unreadable":1}}}}"#,
    "\n",
    r#"{"seq":11,"run_id":"r1","type":"run.completed","path":"","iteration":0,"timestamp":"2026-06-08T08:00:11Z","payload":{"name":"release","kind":"workflow"}}"#,
    "\n",
);

#[test]
fn a_workflow_run_gives_exact_rows_in_every_table() {
    let scratch = TempDir::new("parquet-rows");
    let input = scratch.path().join("r1.jsonl");
    fs::write(&input, RUN).unwrap();
    let out = scratch.path().join("dataset");
    let report = export(&[&input], &out, true);
    assert_eq!((report.added, report.replaced, report.unchanged), (1, 0, 0));
    let problems: Vec<String> = report
        .problems
        .iter()
        .map(|p| {
            format!(
                "{}: {}: {}: {}",
                p.line,
                p.offset,
                p.kind.as_str(),
                p.message
            )
        })
        .collect();
    assert_eq!(
        problems,
        [
            "6: 1040: invalid-json: expected ident at column 2",
            "7: 1049: seq-gap: seq 7, expected 6: 1 missing"
        ]
    );

    let runs = rows(&out, "runs");
    assert_eq!(runs.len(), 1);
    let run = &runs[0];
    let sha = run["source_sha256"].as_str().unwrap();
    assert_eq!(sha.len(), 64);
    let mut expected = json!({
        "run_id": "r1", "parent_run_id": null, "root_run_id": "r1", "lineage_kind": "root",
        "name": "release", "kind": "workflow", "provider": "claude", "agent": "Claude Code",
        "cli_version": "2.1.19", "model": "claude-sonnet-4-6", "session_id": null,
        "status": "completed", "exit_code": null, "stop_reason": null,
        "started_at": 1780905600000000i64, "ended_at": 1780905611000000i64,
        "duration_ms": 11000, "input_tokens": 10, "output_tokens": 5,
        "cache_read_tokens": 100, "cache_write_tokens": 20, "reasoning_tokens": 0,
    });
    let counts = json!({
        "cost_usd_reported": 0.25, "usage_scope": "run", "n_events": 10, "n_messages": 2, "n_steps": 2,
        "n_llm_calls": 1, "n_tool_calls": 1, "n_tool_failures": 1, "n_errors": 0,
        "n_problems": 2, "n_sub_runs": 0, "records_seen": 2, "records_mapped": 1,
        "records_passthrough": 0, "records_unmapped": 1, "unknown_fields": 1,
        "prompt_sha256": "c905f66169fd408cbdc2c545c1d3d0077959709922f613df78a8b10b0e78a97d",
        "source_file": "r1.jsonl", "source_sha256": sha, "source_bytes": RUN.len(),
        "axt_version": env!("CARGO_PKG_VERSION"), "schema_version": "1.1",
        // 10 x $3 + 5 x $15 + 100 x $0.30 + 20 x $3.75 per million tokens (the shipped
        // table's claude-sonnet-4-6): the estimate beside the reported $0.25, which wins.
        "cost_usd_estimated": 0.00021, "cost_usd": 0.25,
        "cost_priced_as": "claude-sonnet-4-6", "prices_date": run["prices_date"],
    });
    expected
        .as_object_mut()
        .unwrap()
        .extend(counts.as_object().unwrap().clone());
    assert_eq!(run, &expected);

    let steps = rows(&out, "steps");
    assert_eq!(steps.len(), 2);
    let (build, review) = (&steps[0], &steps[1]);
    assert_eq!(
        (
            &build["path"],
            &build["status"],
            &build["error"],
            &build["duration_ms"]
        ),
        (
            &json!("build"),
            &json!("failed"),
            &json!("make failed"),
            &json!(5000)
        )
    );
    assert_eq!(
        (&build["n_tool_calls"], &build["n_llm_calls"]),
        (&json!(1), &json!(0))
    );
    assert_eq!(
        (
            &review["kind"],
            &review["model"],
            &review["input_tokens"],
            &review["subtree_cost_usd_reported"]
        ),
        (
            &json!("agent"),
            &json!("claude-sonnet-4-6"),
            &json!(10),
            &json!(0.25)
        )
    );

    let calls = rows(&out, "llm_calls");
    assert_eq!(calls.len(), 1);
    assert_eq!(
        calls[0],
        json!({
            "run_id": "r1", "seq": 9, "step_path": "review", "iteration": 0,
            "response_id": "m1", "provider": "claude", "model": "claude-sonnet-4-6",
            "started_at": 1780905607000000i64, "ended_at": 1780905609000000i64,
            "duration_ms": 2000, "n_blocks": 2, "has_thinking": true, "n_tool_calls": 0,
            "finish_reason": "stop", "input_tokens": 10, "output_tokens": 5,
            "cache_read_tokens": 100, "cache_write_tokens": 20, "reasoning_tokens": 0,
            "cost_usd_reported": 0.25, "cost_usd_estimated": 0.00021, "cost_usd": 0.25,
        })
    );

    let tools = rows(&out, "tool_calls");
    assert_eq!(
        tools,
        [json!({
            "run_id": "r1", "seq": 3, "result_seq": 4, "step_path": "build", "iteration": 0,
            "call_id": "c1", "agent_call_id": null, "name": "Bash", "tool_class": "shell",
            "fidelity": "router", "sighted": false, "status": "error", "exit_code": 2,
            "error": "exit status 2", "started_at": 1780905602000000i64,
            "ended_at": 1780905605000000i64, "duration_ms": 2900, "input_bytes": 18,
            "output_bytes": 77,
            "input_sha256": "0feeb86e202d4881f7cf17e1c8b466cdf04fb493fc9d370b0539ae9d42b7ab74",
            "decision": null,
        })]
    );

    let content = rows(&out, "content");
    let texts: Vec<(&str, &str, bool)> = content
        .iter()
        .map(|c| {
            (
                c["block_type"].as_str().unwrap(),
                c["text"].as_str().unwrap(),
                c["system_prompt"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(texts.len(), 6, "{texts:?}");
    assert!(texts.contains(&("text", "Be brief.", true)));
    assert!(texts.contains(&("text", "Review it.", false)));
    assert!(texts.contains(&("tool_input", r#"{"command":"make"}"#, false)));

    let diagnostics = rows(&out, "diagnostics");
    let mut kinds: Vec<(&str, &str, i64)> = diagnostics
        .iter()
        .map(|d| {
            (
                d["source"].as_str().unwrap(),
                d["kind"].as_str().unwrap(),
                d["count"].as_i64().unwrap(),
            )
        })
        .collect();
    kinds.sort();
    assert_eq!(
        kinds,
        [
            ("adapter", "unknown-field", 1),
            ("adapter", "unreadable", 1),
            ("read", "invalid-json", 1),
            ("read", "seq-gap", 1)
        ]
    );
}

/// `axt ARGS` with the price table `prices` (`AXT_PRICES`; none: the shipped one).
fn axt_priced(args: &[&str], prices: Option<&Path>) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_axt"));
    command
        .args(args)
        .current_dir(ROOT)
        .env_remove("AXT_PRICES")
        .env("XDG_CONFIG_HOME", "/nonexistent-axt-test-config")
        .stdin(Stdio::null());
    if let Some(prices) = prices {
        command.env("AXT_PRICES", prices);
    }
    command.output().expect("axt runs")
}

fn close(got: &Value, want: f64) -> bool {
    got.as_f64().is_some_and(|got| (got - want).abs() <= 1e-12)
}

/// Three agent steps: one reporting its cost, one priced by the table, one of a model the
/// table does not know. Each cost column holds what its name says, and the dataset's
/// `cost_usd` and `cost_usd_reported` are what `axt stats` counts, at the shipped prices
/// and at a user's table alike.
#[test]
fn costs_reported_estimated_and_counted_apart_at_the_price_table_stats_uses() {
    let scratch = TempDir::new("parquet-costs");
    let agent = |seq: u64, path: &str, result: &str| {
        format!(
            r#"{{"seq":{seq},"run_id":"c1","type":"step.started","path":"{path}","iteration":0,"timestamp":"2026-06-08T08:00:0{seq}Z","payload":{{"name":"{path}","kind":"agent"}}}}
{{"seq":{},"run_id":"c1","type":"step.completed","path":"{path}","iteration":0,"timestamp":"2026-06-08T08:00:0{seq}Z","payload":{{"name":"{path}","kind":"agent","result":{result}}}}}
"#,
            seq + 1
        )
    };
    let run = [
        r#"{"seq":1,"run_id":"c1","type":"run.started","path":"","iteration":0,"timestamp":"2026-06-08T08:00:00Z","payload":{"name":"costs","kind":"workflow"}}"#.to_owned() + "\n",
        agent(2, "reported", r#"{"provider":"claude","model":"claude-sonnet-4-6","usage":{"input_tokens":10,"output_tokens":5,"cache_read_tokens":100,"cache_write_tokens":20},"cost_usd":0.25}"#),
        agent(4, "priced", r#"{"provider":"claude","model":"claude-sonnet-4-6","usage":{"input_tokens":1000,"output_tokens":2000}}"#),
        agent(6, "unpriced", r#"{"provider":"openai","model":"test-model","usage":{"input_tokens":7,"output_tokens":7}}"#),
        r#"{"seq":8,"run_id":"c1","type":"run.completed","path":"","iteration":0,"timestamp":"2026-06-08T08:00:09Z","payload":{"name":"costs","kind":"workflow"}}"#.to_owned() + "\n",
    ]
    .concat();
    let transcripts = scratch.path().join("transcripts");
    fs::create_dir(&transcripts).unwrap();
    fs::write(transcripts.join("c1.jsonl"), run).unwrap();
    let user_table = scratch.path().join("prices.json");
    fs::write(
        &user_table,
        r#"{"format": 1, "date": "2027-01-01", "source": "our contract",
            "models": {"claude-sonnet-4-6": {"input": 1, "output": 1, "cache_read": 1, "cache_write": 1}}}"#,
    )
    .unwrap();
    let dir = transcripts.to_str().unwrap();
    // Per million tokens: (10 x 3 + 5 x 15 + 100 x 0.3 + 20 x 3.75) and (1000 x 3 + 2000 x
    // 15) at the shipped prices; every token at $1 at the user's.
    let shipped: Value =
        serde_json::from_str(&fs::read_to_string(root().join("data/prices.json")).unwrap())
            .unwrap();
    let shipped_date = shipped["date"].as_str().unwrap();
    for (prices, reported_estimate, priced_estimate, date) in [
        (None, 210e-6, 33_000e-6, shipped_date),
        (Some(user_table.as_path()), 135e-6, 3_000e-6, "2027-01-01"),
    ] {
        let out = scratch.path().join(format!("dataset-{date}"));
        let output = axt_priced(
            &[
                "export",
                "--to",
                "parquet",
                "--out",
                out.to_str().unwrap(),
                dir,
            ],
            prices,
        );
        assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
        let runs = rows(&out, "runs");
        let run = &runs[0];
        assert_eq!(run["cost_usd_reported"], json!(0.25));
        assert!(
            close(
                &run["cost_usd_estimated"],
                reported_estimate + priced_estimate
            ),
            "{run}"
        );
        assert!(close(&run["cost_usd"], 0.25 + priced_estimate), "{run}");
        assert_eq!(run["cost_priced_as"], json!("claude-sonnet-4-6"));
        assert_eq!(run["prices_date"], json!(date));
        let steps = rows(&out, "steps");
        let step = |path: &str| steps.iter().find(|s| s["path"] == path).unwrap().clone();
        let reported = step("reported");
        assert_eq!(
            (&reported["cost_usd_reported"], &reported["cost_usd"]),
            (&json!(0.25), &json!(0.25))
        );
        assert!(close(&reported["cost_usd_estimated"], reported_estimate));
        let priced = step("priced");
        assert_eq!(priced["cost_usd_reported"], Value::Null);
        assert!(close(&priced["cost_usd_estimated"], priced_estimate));
        assert!(close(&priced["subtree_cost_usd"], priced_estimate));
        let unpriced = step("unpriced");
        assert_eq!(
            [
                &unpriced["cost_usd_reported"],
                &unpriced["cost_usd_estimated"],
                &unpriced["cost_usd"],
                &unpriced["subtree_cost_usd"]
            ],
            [&Value::Null; 4]
        );
        // The same table, the same figures as axt stats.
        let output = axt_priced(&["stats", "--json", dir], prices);
        let stats: Value = serde_json::from_slice(&output.stdout).unwrap();
        let cost = &stats["total"]["cost"];
        assert_eq!(
            (&cost["reported"], &cost["estimated"], &cost["unknown"]),
            (&json!(1), &json!(1), &json!(1))
        );
        assert!(close(&cost["reported_usd"], 0.25));
        assert!(close(&cost["estimated_usd"], priced_estimate), "{cost}");
    }
}

#[test]
fn redact_masks_credentials_in_content_only_when_asked() {
    let scratch = TempDir::new("parquet-redact");
    let input = scratch.path().join("r1.jsonl");
    fs::write(&input, RUN).unwrap();
    for redact in [false, true] {
        let out = scratch.path().join(format!("dataset-{redact}"));
        let options = DatasetOptions {
            content: true,
            redact,
            jobs: 1,
            ..DatasetOptions::default()
        };
        export_dataset(std::slice::from_ref(&input), &out, &options).unwrap();
        let content = rows(&out, "content");
        let output = content
            .iter()
            .find(|c| c["block_type"] == "tool_output")
            .unwrap();
        let text = output["text"].as_str().unwrap();
        assert_eq!(text.contains("sk-ant-api03-AAAA"), !redact, "{text}");
        assert_eq!(output["redacted"], json!(redact));
    }
}

/// A transcript of `run_id` with `calls` calls of one tool with the same arguments, under
/// `prompt`, made by `version` of Claude Code.
fn synthetic_run(run_id: &str, prompt: &str, calls: usize, version: &str) -> String {
    let mut lines = vec![
        json!({"seq":1,"run_id":run_id,"type":"run.started","path":"","iteration":0,"timestamp":"2026-07-01T09:00:00Z","payload":{"name":"claude","kind":"agent"}}),
        json!({"seq":2,"run_id":run_id,"type":"step.started","path":"agent","iteration":0,"timestamp":"2026-07-01T09:00:00Z","payload":{"name":"agent","kind":"agent"}}),
        json!({"seq":3,"run_id":run_id,"type":"message.user","path":"agent","iteration":0,"timestamp":"2026-07-01T09:00:00Z","payload":{"role":"user","blocks":[{"type":"text","fidelity":"agent_emitted","text":prompt}]}}),
    ];
    for n in 0..calls {
        let id = format!("t{n}");
        let seq = lines.len() as u64 + 1;
        lines.push(json!({"seq":seq,"run_id":run_id,"type":"message.assistant","path":"agent","iteration":0,"timestamp":"2026-07-01T09:00:01Z","payload":{"role":"assistant","blocks":[{"type":"tool_use","fidelity":"agent_emitted","tool_name":"Grep","tool_id":id,"tool_input":{"pattern":"TODO"}}],"message_id":format!("m{n}")}}));
        lines.push(json!({"seq":seq+1,"run_id":run_id,"type":"tool.call","path":"agent","iteration":0,"timestamp":"2026-07-01T09:00:01Z","payload":{"name":"Grep","call_id":id,"input":{"pattern":"TODO"},"output":null,"fidelity":"agent_emitted"}}));
        lines.push(json!({"seq":seq+2,"run_id":run_id,"type":"tool.result","path":"agent","iteration":0,"timestamp":"2026-07-01T09:00:02Z","payload":{"name":"Grep","call_id":id,"input":null,"output":"No matches","fidelity":"agent_emitted"}}));
    }
    let seq = lines.len() as u64 + 1;
    lines.push(json!({"seq":seq,"run_id":run_id,"type":"step.completed","path":"agent","iteration":0,"timestamp":"2026-07-01T09:00:03Z","payload":{"name":"agent","kind":"agent"}}));
    lines.push(json!({"seq":seq+1,"run_id":run_id,"type":"run.completed","path":"","iteration":0,"timestamp":"2026-07-01T09:00:03Z","payload":{"name":"claude","kind":"agent","result":{"provider":"claude","provider_version":version,"model":"claude-sonnet-4-6","usage":{"input_tokens":7,"output_tokens":3},"cost_usd":0.01,"status":"completed"}}}));
    lines.iter().map(|l| format!("{l}\n")).collect()
}

fn run_ids(dataset: &Path) -> Vec<String> {
    let mut ids: Vec<String> = rows(dataset, "runs")
        .iter()
        .map(|r| r["run_id"].as_str().unwrap().to_owned())
        .collect();
    ids.sort();
    ids
}

#[test]
fn a_re_export_adds_exactly_the_new_and_changed_runs() {
    let scratch = TempDir::new("parquet-incremental");
    let inputs = scratch.path().join("transcripts");
    fs::create_dir(&inputs).unwrap();
    for n in 0..3 {
        let id = format!("run-{n}");
        fs::write(
            inputs.join(format!("{id}.jsonl")),
            synthetic_run(&id, "p", 1, "2.1.0"),
        )
        .unwrap();
    }
    let out = scratch.path().join("dataset");
    let first = export(&[&inputs], &out, false);
    assert_eq!(
        (first.added, first.replaced, first.unchanged, first.batches),
        (3, 0, 0, 1)
    );
    let before = files(&out);

    // The same directory again: nothing written, not a byte.
    let again = export(&[&inputs], &out, false);
    assert_eq!(
        (again.added, again.replaced, again.unchanged, again.batches),
        (0, 0, 3, 0)
    );
    assert_eq!(files(&out), before);

    // Grown: two new runs, one changed (it went on recording), one removed from the inputs.
    for n in 3..5 {
        let id = format!("run-{n}");
        fs::write(
            inputs.join(format!("{id}.jsonl")),
            synthetic_run(&id, "p", 1, "2.1.0"),
        )
        .unwrap();
    }
    fs::write(
        inputs.join("run-1.jsonl"),
        synthetic_run("run-1", "p", 2, "2.1.0"),
    )
    .unwrap();
    fs::remove_file(inputs.join("run-2.jsonl")).unwrap();
    let grown = export(&[&inputs], &out, false);
    assert_eq!((grown.added, grown.replaced, grown.unchanged), (2, 1, 1));
    // The old batch rewritten without run-1, and one new batch.
    assert_eq!(grown.batches, 2);
    assert_eq!(run_ids(&out), ["run-0", "run-1", "run-2", "run-3", "run-4"]);
    let mut tools: Vec<String> = rows(&out, "tool_calls")
        .iter()
        .map(|t| {
            format!(
                "{}/{}",
                t["run_id"].as_str().unwrap(),
                t["call_id"].as_str().unwrap()
            )
        })
        .collect();
    tools.sort();
    assert_eq!(
        tools,
        [
            "run-0/t0", "run-1/t0", "run-1/t1", "run-2/t0", "run-3/t0", "run-4/t0"
        ]
    );
    let changed = rows(&out, "runs")
        .into_iter()
        .find(|r| r["run_id"] == "run-1")
        .unwrap();
    assert_eq!(changed["n_tool_calls"], json!(2));
    // No file of the first export is left that holds the old run-1.
    assert!(
        files(&out).keys().all(|f| !before.contains_key(f)),
        "{:?}",
        files(&out).keys()
    );

    // And the same grown directory again: nothing.
    let settled = export(&[&inputs], &out, false);
    assert_eq!(
        (settled.added, settled.replaced, settled.batches),
        (0, 0, 0)
    );
}

/// A run of `responses` model responses, each asking for one call answered at once, and
/// then, after all of them, more of response `m3` (a message id coming back late).
fn long_run(responses: usize) -> String {
    let at = |second: u32| format!("2026-07-01T09:00:{second:02}Z");
    let event = |seq: usize, kind: &str, second: u32, payload: Value| json!({"seq":seq,"run_id":"long","type":kind,"path":"agent","iteration":0,"timestamp":at(second),"payload":payload});
    let mut lines = vec![
        event(1, "run.started", 0, json!({"name":"claude","kind":"agent"})),
        event(2, "step.started", 0, json!({"name":"agent","kind":"agent"})),
    ];
    for n in 0..responses {
        let (id, seq) = (format!("t{n}"), lines.len() + 1);
        lines.push(event(seq, "message.assistant", 1, json!({"role":"assistant","blocks":[{"type":"tool_use","fidelity":"agent_emitted","tool_name":"Grep","tool_id":id,"tool_input":{"pattern":"TODO"}}],"message_id":format!("m{n}")})));
        lines.push(event(seq + 1, "tool.call", 1, json!({"name":"Grep","call_id":id,"input":{"pattern":"TODO"},"output":null,"fidelity":"agent_emitted"})));
        lines.push(event(seq + 2, "tool.result", 2, json!({"name":"Grep","call_id":id,"input":null,"output":"No matches","fidelity":"agent_emitted"})));
    }
    let seq = lines.len() + 1;
    lines.push(event(seq, "message.assistant", 5, json!({"role":"assistant","blocks":[{"type":"thinking","fidelity":"agent_emitted","thinking":"hm"},{"type":"text","fidelity":"agent_emitted","text":"done"}],"message_id":"m3"})));
    lines.push(event(
        seq + 1,
        "step.completed",
        6,
        json!({"name":"agent","kind":"agent"}),
    ));
    lines.push(event(seq + 2, "run.completed", 6, json!({"name":"claude","kind":"agent","result":{"provider":"claude","provider_version":"2.1.0","model":"claude-sonnet-4-6","usage":{"input_tokens":7,"output_tokens":3},"status":"completed"}})));
    lines.iter().map(|l| format!("{l}\n")).collect()
}

#[test]
fn a_long_run_is_mapped_whole_with_a_bounded_number_of_rows_held() {
    let scratch = TempDir::new("parquet-long-run");
    let input = scratch.path().join("long.jsonl");
    let responses = 3_000;
    fs::write(&input, long_run(responses)).unwrap();
    let out = scratch.path().join("dataset");
    let report = export(&[&input], &out, false);
    // At most 1,024 responses in memory (the older ones spilled to a file) and the one call
    // awaiting its result; all 3,000, and their 3,000 calls, held until the run's end before.
    assert_eq!(report.peak_held_rows, 1_025);
    // Nothing left beside the dataset: the spill file went with the export.
    let leftover: Vec<PathBuf> = crate::support::walk(&out.join("_axt"))
        .into_iter()
        .filter(|f| f.extension().is_none_or(|e| e != "json"))
        .filter(|f| !f.ends_with("lock"))
        .collect();
    assert_eq!(leftover, Vec::<PathBuf>::new());
    let calls = rows(&out, "llm_calls");
    assert_eq!(calls.len(), responses);
    let mut seqs: Vec<i64> = calls.iter().map(|r| r["seq"].as_i64().unwrap()).collect();
    seqs.sort_unstable();
    let want: Vec<i64> = (0..responses as i64).map(|n| 3 + 3 * n).collect();
    assert_eq!(seqs, want);
    for row in &calls {
        let id = row["response_id"].as_str().unwrap();
        // m3, spilled long before its message id came back, has the late blocks too.
        let (blocks, thinking, ended) = if id == "m3" {
            (3, true, "2026-07-01T09:00:05Z")
        } else {
            (1, false, "2026-07-01T09:00:01Z")
        };
        let ended = axt::model::Timestamp::parse(ended)
            .unwrap()
            .unix_nanos()
            .unwrap()
            / 1_000;
        assert_eq!(row["n_blocks"], json!(blocks), "{row}");
        assert_eq!(row["has_thinking"], json!(thinking), "{row}");
        assert_eq!(row["n_tool_calls"], json!(1), "{row}");
        assert_eq!(row["ended_at"], json!(ended as i64), "{row}");
        assert_eq!(row["model"], json!("claude-sonnet-4-6"), "{row}");
        assert_eq!(row["finish_reason"], json!("tool_call"), "{row}");
    }
    let tools = rows(&out, "tool_calls");
    assert_eq!(tools.len(), responses);
    assert!(tools.iter().all(|t| t["status"] == "success"), "{tools:?}");
}

#[test]
fn one_run_in_two_files_is_exported_once() {
    let scratch = TempDir::new("parquet-duplicate");
    let (a, b) = (scratch.path().join("a"), scratch.path().join("b"));
    fs::create_dir(&a).unwrap();
    fs::create_dir(&b).unwrap();
    fs::write(
        a.join("run-1.jsonl"),
        synthetic_run("run-1", "p", 1, "2.1.0"),
    )
    .unwrap();
    fs::write(
        b.join("run-1.jsonl"),
        synthetic_run("run-1", "p", 1, "2.1.0"),
    )
    .unwrap();
    fs::write(
        b.join("copy.jsonl"),
        synthetic_run("run-1", "p", 3, "2.1.0"),
    )
    .unwrap();
    let out = scratch.path().join("dataset");
    let report = export(&[&a, &b], &out, false);
    assert_eq!(report.added, 1);
    assert_eq!(report.problems.len(), 1);
    assert!(
        report.problems[0]
            .message
            .starts_with("run run-1 is also in "),
        "{}",
        report.problems[0]
    );
    assert_eq!(run_ids(&out), ["run-1"]);
}

/// The files of a dataset, its manifest included (the lock file left out), with their bytes.
fn dataset_files(dataset: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    crate::support::walk(dataset)
        .into_iter()
        .filter(|f| !f.ends_with("_axt/lock"))
        .map(|f| {
            (
                f.strip_prefix(dataset).unwrap().to_owned(),
                fs::read(&f).unwrap(),
            )
        })
        .collect()
}

/// What an export reports, as text to compare.
fn report_summary(report: &axt::export::parquet::DatasetReport) -> String {
    let problems: Vec<String> = report.problems.iter().map(ToString::to_string).collect();
    format!(
        "{} files, {} added, {} replaced, {} unchanged, {} batches, rows {:?}, held {}, \
         problems {problems:?}",
        report.files,
        report.added,
        report.replaced,
        report.unchanged,
        report.batches,
        report.rows,
        report.peak_held_rows
    )
}

/// The runs of one batch are mapped on every worker and their rows written in the batch's
/// order on the calling thread: however many workers export it, first and incrementally,
/// a dataset is the same, byte for byte, manifest included, and no row is lost (runs of
/// hundreds of calls are handed over in several chunks).
#[test]
fn every_number_of_workers_writes_the_same_dataset_byte_for_byte() {
    let scratch = TempDir::new("parquet-workers");
    let inputs = scratch.path().join("transcripts");
    fs::create_dir(&inputs).unwrap();
    let calls = |n: usize| [1, 400, 3, 40][n % 4] + n;
    let write_run = |n: usize, extra: usize| {
        let id = format!("run-{n:02}");
        let mut text = synthetic_run(&id, &format!("prompt {}", n % 3), calls(n) + extra, "2.1.0");
        if n.is_multiple_of(3) {
            text = text.replace("2026-07-01", "2026-07-02");
        }
        if n == 5 {
            text.push_str("not json\n");
        }
        fs::write(inputs.join(format!("{id}.jsonl")), text).unwrap();
    };
    for n in 0..16 {
        write_run(n, 0);
    }
    let export_with = |jobs: usize, out: &Path| {
        let options = DatasetOptions {
            content: true,
            jobs,
            ..DatasetOptions::default()
        };
        report_summary(&export_dataset(std::slice::from_ref(&inputs), out, &options).unwrap())
    };
    let outs: Vec<PathBuf> = (1..=3)
        .map(|jobs| scratch.path().join(format!("dataset-{jobs}")))
        .collect();
    // Exports into each dataset with its number of workers: the same reports and files.
    let export_each = |expected: &str| {
        let mut reports: Vec<String> = (1..=3)
            .map(|jobs| export_with(jobs, &outs[jobs - 1]))
            .collect();
        assert!(reports[0].contains(expected), "{}", reports[0]);
        for jobs in 2..=3 {
            assert_eq!(reports[jobs - 1], reports[0], "--jobs {jobs}");
            assert!(
                dataset_files(&outs[jobs - 1]) == dataset_files(&outs[0]),
                "--jobs {jobs}"
            );
        }
        reports.swap_remove(0)
    };
    let first = export_each("16 added, 0 replaced, 0 unchanged, 2 batches");
    // run-05's line that is no JSON, reported.
    assert!(first.contains("problems [\""), "{first}");
    let tool_calls = rows(&outs[0], "tool_calls").len();
    assert_eq!(tool_calls, (0..16).map(calls).sum::<usize>());

    // Two runs changed (one of each date) and one added: two batches rewritten without
    // them, one new batch per date.
    write_run(1, 5);
    write_run(3, 5);
    write_run(16, 0);
    export_each("1 added, 2 replaced, 14 unchanged, 4 batches");
    assert_eq!(
        rows(&outs[0], "tool_calls").len(),
        (0..17).map(calls).sum::<usize>() + 10
    );
}

#[test]
fn a_dead_export_is_finished_by_its_journal_or_discarded_without_one() {
    let scratch = TempDir::new("parquet-journal");
    let inputs = scratch.path().join("transcripts");
    fs::create_dir(&inputs).unwrap();
    fs::write(
        inputs.join("run-0.jsonl"),
        synthetic_run("run-0", "p", 1, "2.1.0"),
    )
    .unwrap();
    let out = scratch.path().join("dataset");
    export(&[&inputs], &out, false);
    let staging = out.join("_axt/staging");

    // Died before its commit point: staged files, no journal. Discarded.
    let dead = staging.join("1-1");
    fs::create_dir_all(dead.join("entries")).unwrap();
    fs::write(
        dead.join("runs__date=2026-07-01__part-x.parquet"),
        b"half a file",
    )
    .unwrap();
    // Died after it: the journal says to move a file in and add an entry.
    let committed = staging.join("2-2");
    fs::create_dir_all(committed.join("entries")).unwrap();
    fs::write(committed.join("staged.parquet"), b"moved in").unwrap();
    let entry = json!({"batch": "b2", "date": "2026-07-02", "schema_version": "1.0",
        "rows": {}, "runs": [{"key": "other", "run_id": "other", "source_sha256": "00", "source_bytes": 1}]});
    fs::write(committed.join("entries/b2.json"), entry.to_string()).unwrap();
    let journal = json!({"remove_files": [], "move_files": [["staged.parquet", "runs/date=2026-07-02/part-b2.parquet"]],
        "remove_entries": [], "add_entries": ["b2"]});
    fs::write(committed.join("commit.json"), journal.to_string()).unwrap();

    let report = export(&[&inputs], &out, false);
    assert_eq!(report.unchanged, 1);
    assert!(
        fs::read_dir(&staging).unwrap().next().is_none(),
        "staging is emptied"
    );
    assert_eq!(
        fs::read(out.join("runs/date=2026-07-02/part-b2.parquet")).unwrap(),
        b"moved in"
    );
    assert!(out.join("_axt/batches/b2.json").is_file());
}

#[test]
fn two_exports_at_once_into_one_dataset_write_each_run_once() {
    let scratch = TempDir::new("parquet-concurrent");
    let inputs = scratch.path().join("transcripts");
    fs::create_dir(&inputs).unwrap();
    for n in 0..40 {
        let id = format!("run-{n:02}");
        fs::write(
            inputs.join(format!("{id}.jsonl")),
            synthetic_run(&id, "p", 2, "2.1.0"),
        )
        .unwrap();
    }
    let out = scratch.path().join("dataset");
    let spawn = || {
        Command::new(env!("CARGO_BIN_EXE_axt"))
            .args(["export", "--to", "parquet", "--quiet", "--out"])
            .arg(&out)
            .arg(&inputs)
            .stdin(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (a, b) = (spawn(), spawn());
    for child in [a, b] {
        let output = child.wait_with_output().unwrap();
        assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    }
    let ids = run_ids(&out);
    assert_eq!(ids.len(), 40);
    assert_eq!(ids.iter().collect::<BTreeSet<_>>().len(), 40);
    assert_eq!(rows(&out, "tool_calls").len(), 80);
}

#[test]
fn cli_usage_and_outcome() {
    let scratch = TempDir::new("parquet-cli");
    let out = scratch.path().join("dataset");
    let out = out.to_str().unwrap();
    for (args, message) in [
        (
            &["export", "--to", "parquet", "corpus/read/transcript/ok"][..],
            "axt: --to parquet needs --out DIR\n",
        ),
        (
            &[
                "export",
                "--to",
                "parquet",
                "-o",
                "x",
                "--out",
                out,
                "corpus/read/transcript/ok",
            ][..],
            "axt: --to parquet writes a dataset: give --out DIR, not -o FILE\n",
        ),
        (
            &[
                "export",
                "--out",
                out,
                "corpus/read/transcript/ok/plain-run.jsonl",
            ][..],
            "axt: --out is for --to parquet\n",
        ),
        (
            &[
                "export",
                "--to",
                "parquet",
                "--root",
                ".",
                "--out",
                out,
                "corpus/read/transcript/ok",
            ][..],
            "axt: --root is for --to agentlog\n",
        ),
        (
            &["export", "--to", "parquet", "--out", out, "-"][..],
            "axt: --to parquet reads run files and directories, not stdin: give FILE or DIR\n",
        ),
    ] {
        let output = axt(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert_eq!(text(&output.stderr), message, "{args:?}");
    }
    // Clean input: 0, and a notice of what was done.
    let output = axt(&[
        "export",
        "--to",
        "parquet",
        "--out",
        out,
        "corpus/read/transcript/ok/nested",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert_eq!(
        text(&output.stderr),
        format!(
            "axt: exported 3 files into {out}: 3 added, 0 replaced, 0 unchanged; 1 batch written\n"
        )
    );
    // A file with problems: 1, each problem on stderr, and still exported.
    let output = axt(&[
        "export",
        "--to",
        "parquet",
        "--quiet",
        "--out",
        out,
        "corpus/read/transcript/err/seq-gap.jsonl",
    ]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    assert!(
        text(&output.stderr).contains(": seq-gap: "),
        "{}",
        text(&output.stderr)
    );
    // A dataset of another major version is refused.
    fs::write(
        Path::new(out).join("_axt/dataset.json"),
        r#"{"format": "axt-parquet", "schema_version": "2.0"}"#,
    )
    .unwrap();
    let output = axt(&[
        "export",
        "--to",
        "parquet",
        "--out",
        out,
        "corpus/read/transcript/ok/nested",
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        text(&output.stderr).contains("schema 2.0 cannot take rows of schema 1.1"),
        "{}",
        text(&output.stderr)
    );
}

/// The schema's tables as the published page lists them.
fn schema_markdown() -> String {
    let mut text = String::new();
    for table in TABLES {
        text.push_str(&format!(
            "\n### `{}`\n\n{}.\n\n",
            table.name,
            capitalized(table.grain)
        ));
        text.push_str("| column | type | null | meaning |\n|---|---|---|---|\n");
        for column in table.columns {
            text.push_str(&format!(
                "| `{}` | {} | {} | {} |\n",
                column.name,
                column.kind.as_str(),
                if column.nullable { "yes" } else { "no" },
                column.doc.trim().replace('|', "\\|")
            ));
        }
    }
    text.push('\n');
    text
}

fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// docs/parquet.md (also the crate docs of `axt::export::parquet`) lists every column of
/// the schema, as defined in `schema.rs`. `AXT_UPDATE_DOCS=1` rewrites the list.
#[test]
fn the_published_page_lists_every_column_of_the_schema() {
    let path = root().join("docs/parquet.md");
    let page = fs::read_to_string(&path).unwrap();
    let (begin, end) = ("<!-- schema:begin -->\n", "<!-- schema:end -->");
    let start = page.find(begin).expect("the begin marker") + begin.len();
    let stop = page.find(end).expect("the end marker");
    let expected = format!(
        "\nVersion {}.\n{}",
        axt::export::parquet::SCHEMA_VERSION,
        schema_markdown()
    );
    if std::env::var_os("AXT_UPDATE_DOCS").is_some() {
        fs::write(
            &path,
            format!("{}{expected}{}", &page[..start], &page[stop..]),
        )
        .unwrap();
        return;
    }
    similar_asserts(&page[start..stop], &expected);
}

fn similar_asserts(got: &str, want: &str) {
    if got != want {
        let diff = similar::TextDiff::from_lines(got, want);
        panic!(
            "docs/parquet.md's schema is stale (AXT_UPDATE_DOCS=1 rewrites it):\n{}",
            diff.unified_diff()
        );
    }
}

/// Every transcript the corpus makes: each `ok/` provider fixture normalized, each Claude
/// Code session imported, each `ok/` transcript as it is.
fn corpus_transcripts(dir: &Path) -> usize {
    let mut count = 0;
    for provider in Provider::ALL {
        for fixture in fixtures(&normalize_corpus(provider), &PROVIDER_INPUTS) {
            if fixture.outcome != Outcome::Ok || fixture.relative.components().count() != 2 {
                continue;
            }
            let events = EventOptions {
                run_id: Some(format!("{provider}-{}", fixture.name())),
                clock: Box::new(now),
            };
            let mut transcriber = Transcriber::new(provider, Options::default(), events);
            let mut sink = RecordingSink::new(dir, RecorderOptions::default(), |_| Ok(()));
            transcriber
                .push(&fs::read(&fixture.path).unwrap(), &mut sink)
                .unwrap();
            transcriber.finish(&mut sink).unwrap();
            sink.recorder().unwrap().close().unwrap();
            count += 1;
        }
    }
    for files in sessions(Outcome::Ok) {
        if let Ok(session) = convert(&files) {
            count += write(&session, dir, false).unwrap().len();
        }
    }
    for fixture in fixtures(&read_corpus(), &["jsonl"]) {
        if fixture.outcome == Outcome::Ok {
            let target = dir.join(fixture.relative.strip_prefix("ok").unwrap());
            fs::create_dir_all(target.parent().unwrap()).unwrap();
            fs::copy(&fixture.path, target).unwrap();
            count += 1;
        }
    }
    count
}

fn engines_python() -> Option<PathBuf> {
    let python = root().join("target/readers/venv/bin/python");
    python.is_file().then_some(python)
}

/// Runs the engines' check; its JSON summary.
fn engines_check(python: &Path, dataset: &Path, stats: &Path, spark: bool) -> Value {
    let mut command = Command::new(python);
    command
        .arg(root().join("tests/axt/support/dataset-engines.py"))
        .arg(dataset)
        .arg(stats)
        .arg(root().join("docs/parquet.md"));
    if spark {
        command.arg("--spark");
    }
    let output = command.output().unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    serde_json::from_slice(&output.stdout).unwrap()
}

fn stats_json(dir: &Path, into: &Path) {
    let output = axt(&["stats", "--json", dir.to_str().unwrap()]);
    assert!(
        output.status.code().unwrap() <= 1,
        "{}",
        text(&output.stderr)
    );
    fs::write(into, &output.stdout).unwrap();
}

/// The whole corpus exported, then read back by DuckDB and Spark: every total against
/// `axt stats --json`, every query of docs/parquet.md in both engines with the same rows;
/// then the same directory again (nothing written) and grown (exactly the new and changed
/// runs added), read back again.
#[test]
#[allow(clippy::print_stderr)]
fn duckdb_and_spark_read_the_corpus_dataset_as_axt_stats_counts_it() {
    let Some(python) = engines_python() else {
        eprintln!(
            "SKIPPED duckdb_and_spark_read_the_corpus_dataset_as_axt_stats_counts_it: no \
             target/readers/venv (`.ci/run` installs it: python3 -m venv \
             target/readers/venv && target/readers/venv/bin/pip install duckdb pyspark atif; \
             Spark needs a Java runtime)"
        );
        return;
    };
    let scratch = TempDir::new("parquet-engines");
    let transcripts = scratch.path().join("transcripts");
    fs::create_dir(&transcripts).unwrap();
    let count = corpus_transcripts(&transcripts);
    let (dataset, stats) = (
        scratch.path().join("dataset"),
        scratch.path().join("stats.json"),
    );
    let (dataset_arg, transcripts_arg) = (dataset.to_str().unwrap(), transcripts.to_str().unwrap());
    stats_json(&transcripts, &stats);
    let export = |expect: &str| {
        let output = axt(&[
            "export",
            "--to",
            "parquet",
            "--content",
            "--out",
            dataset_arg,
            transcripts_arg,
        ]);
        assert!(
            output.status.code().unwrap() <= 1,
            "{}",
            text(&output.stderr)
        );
        let stderr = text(&output.stderr);
        assert!(stderr.contains(expect), "{stderr}");
    };
    export(&format!("{count} added, 0 replaced, 0 unchanged"));
    let first = engines_check(&python, &dataset, &stats, false);
    assert_eq!(first["rows"]["runs"], json!(count));

    export(&format!(
        "0 added, 0 replaced, {count} unchanged; 0 batches written"
    ));

    // Grown: a prompt whose run loops, the same agent after a CLI upgrade, and a changed run.
    let looping = synthetic_run("loop-1", "Find every TODO.", 4, "2.1.0");
    fs::write(transcripts.join("loop-1.jsonl"), &looping).unwrap();
    fs::write(
        transcripts.join("upgrade-1.jsonl"),
        synthetic_run("upgrade-1", "Find every TODO.", 1, "9.9.9"),
    )
    .unwrap();
    let changed = transcripts.join("plain-run.jsonl");
    let mut grown = fs::read_to_string(&changed).unwrap();
    grown = grown.replace("\"review\"", "\"review, again\"");
    fs::write(&changed, grown).unwrap();
    stats_json(&transcripts, &stats);
    export(&format!("2 added, 1 replaced, {} unchanged", count - 1));
    let last = engines_check(&python, &dataset, &stats, true);
    assert_eq!(last["engines"], json!(["duckdb", "spark"]));
    assert_eq!(last["rows"]["runs"], json!(count + 2));
    let loops = &last["queries"]["Which prompts loop"];
    let prompt = axt_sha256("Find every TODO.");
    assert_eq!(loops, &json!([[prompt, 1, 4, "Grep"]]));
    let upgrade = last["queries"]["What a CLI upgrade changed"]
        .as_array()
        .unwrap();
    assert!(
        upgrade.contains(&json!(["claude", "9.9.9", 1, 1.0, 0.0, 3.0, 0, 0])),
        "{upgrade:?}"
    );
}

fn axt_sha256(text: &str) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
