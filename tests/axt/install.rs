//! How axt is built and installed: the README's commands, the build profiles they use, and
//! the release automation, checked against each other so that none of them drifts.
//!
//! The figures (how long a fresh clone takes) come from `make fresh-clone-times`, not from
//! here: a test cannot time a cold build.

use crate::support::root;

fn read(path: &str) -> String {
    std::fs::read_to_string(root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The keys of one `[section]` of a Cargo.toml, as `key = value` lines without comments.
fn section(toml: &str, name: &str) -> Vec<String> {
    let header = format!("[{name}]");
    toml.lines()
        .skip_while(|line| line.trim() != header)
        .skip(1)
        .take_while(|line| !line.trim_start().starts_with('['))
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(str::to_owned)
        .collect()
}

/// The release profile (what `cargo install` and `cargo run --release` build) is cargo's
/// fast default; the fat-LTO build is the `dist` profile, and the benchmarks (whose ratios
/// the README quotes) and the memory scripts measure that one, in the core crate and in the
/// Python package's alike.
#[test]
fn release_is_fast_and_dist_and_bench_are_fat_lto() {
    for manifest in ["Cargo.toml", "python/Cargo.toml"] {
        let toml = read(manifest);
        assert_eq!(
            section(&toml, "profile.release"),
            [r#"debug = "line-tables-only""#],
            "{manifest}"
        );
        assert_eq!(
            section(&toml, "profile.dist"),
            [
                r#"inherits = "release""#,
                r#"lto = "fat""#,
                "codegen-units = 1"
            ],
            "{manifest}"
        );
    }
    assert_eq!(
        section(&read("Cargo.toml"), "profile.bench"),
        [r#"inherits = "dist""#]
    );
    // A bench binary cannot tell its own profile: the Makefile's bench targets name it.
    let measure = read("benches/measure/mod.rs");
    assert!(measure.contains(r#"std::env::var("AXT_BENCH_PROFILE")"#));
    let makefile = read("Makefile");
    for bench in ["normalize", "read", "recorder"] {
        let line = format!(
            "AXT_BENCH_PROFILE='bench = dist (fat LTO, 1 codegen unit)' $(CARGO) bench --locked --bench {bench}"
        );
        assert!(makefile.contains(&line), "{bench}");
    }
    for script in ["scripts/read-memory.sh", "scripts/import-memory.sh"] {
        let text = read(script);
        assert!(text.contains("cargo build --profile dist"), "{script}");
        assert!(!text.contains("--release"), "{script}");
    }
}

/// The README installs with `--locked` (the versions CI built, not whatever is newest) and
/// builds the Python package with its progress shown.
#[test]
fn the_readme_installs_what_ci_tested_and_shows_progress() {
    let readme = read("README.md");
    let install: Vec<&str> = readme
        .lines()
        .filter(|l| l.starts_with("cargo install"))
        .collect();
    assert_eq!(install, ["cargo install --locked --path ."]);
    let pip: Vec<&str> = readme
        .lines()
        .filter(|l| l.starts_with("pip install") && l.contains("./python"))
        .collect();
    assert_eq!(pip.len(), 1, "{pip:?}");
    assert!(pip[0].starts_with("pip install -v ./python"), "{pip:?}");
    assert!(read("python/README.md").contains("pip install -v ./python"));
}

/// `make dist` and the release workflow build the same artifacts with the dist profile: the
/// CLI for Linux and macOS on both architectures, and the abi3 wheels.
#[test]
fn release_automation_builds_the_cli_and_the_wheels_with_the_dist_profile() {
    let workflow = read(".github/workflows/release.yml");
    for target in [
        "x86_64-unknown-linux-gnu",
        "aarch64-unknown-linux-gnu",
        "x86_64-apple-darwin",
        "aarch64-apple-darwin",
    ] {
        assert!(workflow.contains(&format!("target: {target}")), "{target}");
    }
    assert!(workflow.contains("cargo build --locked --profile dist --target"));
    assert!(workflow.contains("PyO3/maturin-action@v1"));
    assert!(workflow.contains("args: --locked --profile dist"));
    assert!(workflow.contains("bash scripts/dist-tarball.sh"));
    let makefile = read("Makefile");
    assert!(makefile.contains("$(CARGO) build --locked --profile dist\n"));
    assert!(makefile.contains("bash scripts/dist-tarball.sh $(DIST)"));
    assert!(makefile.contains(r#"MATURIN_PEP517_ARGS="--profile dist""#));
    // The wheel is abi3: one per platform for every CPython from 3.9.
    assert!(read("python/Cargo.toml").contains(r#"features = ["abi3-py39""#));
}
