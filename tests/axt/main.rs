//! axt's integration tests: one binary (one link, one run), one module per area.
//!
//! The pipeline's stages, each tested on its own corpus (`corpus/<stage>/`) against its
//! golden snapshots (`golden/<stage>/`), then the areas around them. `support` is what the
//! harnesses share; nothing in it asserts what a stage must do.

mod support;

// Golden corpus harnesses, one per stage: fixtures in, invariants checked, snapshots compared.
mod golden_atif; // transcripts -> ATIF trajectories, validated by the format's models
mod golden_export; // transcripts of the other corpora -> AgentLog documents
mod golden_import; // Claude Code session logs -> linked transcripts
mod golden_normalize; // provider output -> blocks, metadata, diagnostics
mod golden_otlp; // transcripts -> OTLP/JSON spans in the GenAI conventions
mod golden_read; // transcripts -> reader problems, links, the tree
mod golden_show; // runs -> what `axt show` and `axt ls` print for a person
mod golden_stores; // every other store's sessions -> linked transcripts

// The Parquet dataset: exact rows, incremental re-runs, the journal, and real engines.
mod parquet;

// The corpus as a whole: its docs agree with the goldens; generators, stages, orphans.
mod corpus_docs;
mod corpus_tree;

// One table of tool classes: no second list of tool names anywhere in src/.
mod tool_names;

// One provider registry: every list of providers derives from `Provider::ALL` or is checked.
mod registry;

// Normalize: one module per adapter, exact values on real captures and hand-made input.
mod codex;
mod copilot;
mod gemini;
mod normalize; // the library API, exact values, the seed recipes on `axt normalize`
mod openai;
mod partial_messages; // Claude partial messages: every interleaving, each block once

// Across adapters: the same scenario, source times, chunking found by the fuzzer.
mod equivalence;
mod fuzz_regressions;
mod times;

// Export over the wire: OTLP/HTTP to a stub collector and to a real receiver (Phoenix).
mod otlp_live; // `axt exec --otlp-endpoint`: live spans, and a collector that stalls
mod otlp_send; // `axt export --to otlp --endpoint`: a stub collector, and Phoenix

// `axt proxy`: a stand-in upstream replaying the corpus, and the real Python SDKs.
mod proxy;

// Import: one Claude Code session at a time, and the `axt import` command; generated graphs;
// importing again.
mod discovery; // `axt import` finding every store in a fake home, again after growth
mod import;
mod import_graphs;
mod incremental; // importing again: only what is new or grew, appended
mod opencode_store; // OpenCode's database under a live writer, its migrated files

// How axt is built and installed: the README's commands, the profiles, release automation.
mod install;

// The crate's own shape: layers, no import cycles, no oversized files.
mod layering;

// The canonical model, the recorder, the reader.
mod both_channels; // a call the router captured and the agent reported: counted once
mod limits; // one line and nesting limit for the writer and every reader
mod model;
mod read;
mod record;

// The command line and live capture (`axt exec` around a stand-in agent).
mod batch; // normalize and stats over many inputs on every core: what one worker gives
mod cli;
mod costs; // what a run cost and how long it took, told honestly
mod directories; // every reading command takes a directory, as stats and ls do
mod exec;
mod exec_acp; // `axt exec --acp` around a stand-in ACP agent
mod exec_faults; // `axt exec` on a real full disk, under real signals, killed, with stalled readers
mod hints; // normalize's hints: pretty-printed JSON, a session log, empty or cut-off output
mod show; // `axt show` and `axt ls`: finding runs, their options, what is not a run

// Files private and never through a link; masking in every file a run writes.
mod security;
// What is at a run's path (FIFOs, devices, other users' files) and who else has the run.
mod run_files;

// `axt view`: the page, read back, linted, and in a real browser (Chromium).
mod usage; // axt usage: what import + stats count, read from the store alone
mod view;

// The executor's seam: runs, steps, agent steps and router tools, as an executor uses them.
mod workflow;

// The benchmark's generated streams are valid input.
mod bench_stream;
