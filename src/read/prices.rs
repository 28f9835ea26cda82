//! The price table: what a model's tokens cost, to estimate a run's cost where the provider
//! reports none.
//!
//! The table axt ships is `data/prices.json` in the repository (compiled in): per model, US
//! dollars per million tokens of each kind ([`Price`]), with the table's source and date;
//! `data/README.md` says how it is made and updated (`scripts/update-prices.py`, from
//! LiteLLM's table). Prices change faster than releases, so a user's own table, in the same
//! format, is laid over it ([`Prices::load`]): the file `AXT_PRICES` names, else
//! `$XDG_CONFIG_HOME/axt/prices.json` (`~/.config/axt/prices.json`); its models replace or
//! add to the shipped ones, model by model.
//!
//! An estimate is the run's tokens at the model's list price: uncached input, output
//! (reasoning included: every provider bills it as output), cache reads and cache writes,
//! each at its own price. It is only an estimate, and is always labelled as one: the
//! table's tiered prices (long-context surcharges, batch discounts) are not applied, a run
//! that used several models is priced at the model it names, and a subscription (Claude Max,
//! ChatGPT, Copilot) bills otherwise. A model the table does not know has no estimate.
//!
//! This file owns the table and the lookup; it must not decide which cost a reader shows
//! (a provider's reported cost wins: see [`Cost`](super::Cost)).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde::Deserialize;

use crate::model::Usage;

/// The table shipped with axt.
const BUILTIN: &str = include_str!("../../data/prices.json");

/// The version of the table's format this reader reads (`format` in the file).
const FORMAT: u64 = 1;

/// One model's prices, in US dollars per million tokens.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct Price {
    /// Uncached input tokens.
    pub input: f64,
    /// Output tokens, reasoning included.
    pub output: f64,
    /// Input tokens read from the prompt cache.
    #[serde(default)]
    pub cache_read: f64,
    /// Input tokens written to the prompt cache.
    #[serde(default)]
    pub cache_write: f64,
    /// The LiteLLM entry the prices were taken from, when not the model's own name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub litellm_key: Option<String>,
}

impl Price {
    /// What `usage` costs at these prices, in US dollars (reasoning is part of the output).
    pub fn cost(&self, usage: &Usage) -> f64 {
        (usage.input_tokens as f64 * self.input
            + usage.output_tokens as f64 * self.output
            + usage.cache_read_tokens as f64 * self.cache_read
            + usage.cache_write_tokens as f64 * self.cache_write)
            / 1e6
    }
}

/// A price table: the shipped one, with a user's laid over it.
#[derive(Clone, Debug, PartialEq)]
pub struct Prices {
    /// Where the prices come from and when they were taken, as the table says (and the
    /// user's table's, when one was laid over).
    pub source: String,
    /// The date of the prices (the user's table's, when it has one).
    pub date: String,
    models: BTreeMap<String, Price>,
}

/// The file's shape.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    format: u64,
    #[serde(default)]
    date: String,
    #[serde(default)]
    source: String,
    #[serde(default)]
    unit: Option<String>,
    models: BTreeMap<String, Price>,
}

/// A price table that could not be read.
#[derive(Debug, thiserror::Error)]
pub enum PriceError {
    /// The file could not be read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not a price table.
    #[error("{}:{line}: {message}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// The 1-based line of the problem.
        line: usize,
        /// What is wrong.
        message: String,
    },
}

impl Prices {
    /// The table shipped with axt.
    pub fn builtin() -> &'static Prices {
        static TABLE: OnceLock<Prices> = OnceLock::new();
        TABLE.get_or_init(|| {
            Prices::parse(BUILTIN, Path::new("data/prices.json"))
                .expect("data/prices.json is a valid price table (tests/axt/prices.rs)")
        })
    }

    /// Reads a price table in the shipped table's format; `path` names it in errors.
    pub fn parse(text: &str, path: &Path) -> Result<Prices, PriceError> {
        let invalid = |line: usize, message: String| PriceError::Invalid {
            path: path.to_owned(),
            line,
            message,
        };
        let file: File =
            serde_json::from_str(text).map_err(|e| invalid(e.line(), e.to_string()))?;
        if file.format != FORMAT {
            let message = format!("format {} (this axt reads format {FORMAT})", file.format);
            return Err(invalid(1, message));
        }
        if let Some(unit) = file.unit.filter(|u| u != "USD per million tokens") {
            let message = format!("unit {unit:?}: prices must be USD per million tokens");
            return Err(invalid(1, message));
        }
        let negative = file.models.iter().find(|(_, p)| {
            [p.input, p.output, p.cache_read, p.cache_write]
                .iter()
                .any(|v| !v.is_finite() || *v < 0.0)
        });
        if let Some((model, _)) = negative {
            return Err(invalid(
                1,
                format!("{model}: a price is negative or not a number"),
            ));
        }
        Ok(Prices {
            source: file.source,
            date: file.date,
            models: file.models,
        })
    }

    /// The shipped table with the user's laid over it, and the user's file if there was
    /// one: [`user_file`] says where it is looked up. A user's file
    /// that cannot be read is an error; none is no error.
    pub fn load() -> Result<(Prices, Option<PathBuf>), PriceError> {
        let builtin = Prices::builtin().clone();
        let Some(path) = user_file(&|name| std::env::var_os(name)) else {
            return Ok((builtin, None));
        };
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            // The default place is only looked in; AXT_PRICES names a file that must exist.
            Err(error)
                if error.kind() == std::io::ErrorKind::NotFound
                    && std::env::var_os("AXT_PRICES").is_none_or(|p| p.is_empty()) =>
            {
                return Ok((builtin, None));
            }
            Err(source) => return Err(PriceError::Io { path, source }),
        };
        let user = Prices::parse(&text, &path)?;
        Ok((builtin.overlaid(user), Some(path)))
    }

    /// This table with `user`'s models replacing or added to its own.
    pub fn overlaid(mut self, user: Prices) -> Prices {
        self.models.extend(user.models);
        if !user.date.is_empty() {
            self.date = user.date;
        }
        if !user.source.is_empty() {
            self.source = format!("{}; over {}", user.source, self.source);
        }
        self
    }

    /// The model's prices and the table entry they are under (see [`table_names`] for how
    /// a model's name is matched); `None` when the table does not know it.
    pub fn lookup(&self, model: &str) -> Option<(&str, &Price)> {
        table_names(model)
            .into_iter()
            .find_map(|name| self.models.get_key_value(name.as_str()))
            .map(|(name, price)| (name.as_str(), price))
    }

    /// The models of the table, by name.
    pub fn models(&self) -> &BTreeMap<String, Price> {
        &self.models
    }
}

/// The user's price table: `AXT_PRICES`, else `$XDG_CONFIG_HOME/axt/prices.json`, else
/// `$HOME/.config/axt/prices.json`; `env` reads a variable.
pub fn user_file(env: &dyn Fn(&str) -> Option<std::ffi::OsString>) -> Option<PathBuf> {
    let set = |name: &str| env(name).filter(|v| !v.is_empty());
    if let Some(path) = set("AXT_PRICES") {
        return Some(PathBuf::from(path));
    }
    let config = set("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| set("HOME").map(|home| Path::new(&home).join(".config")))?;
    Some(config.join("axt").join("prices.json"))
}

/// The names a model is looked up under, in order: as the run names it; lower-cased;
/// without a routing prefix (`openai/gpt-4o`, `models/gemini-2.5-pro`) or an OpenRouter
/// variant (`:online`); without a date (`-2025-04-14`, `-20250929`, `@20241022`); and for a
/// Claude model, with dots for hyphens (Copilot's `claude-sonnet-4.5`).
pub fn table_names(model: &str) -> Vec<String> {
    let mut names = vec![model.to_owned()];
    let mut name = model.to_ascii_lowercase();
    names.push(name.clone());
    if let Some((_, last)) = name.rsplit_once('/') {
        name = last.to_owned();
        names.push(name.clone());
    }
    if let Some((base, _variant)) = name.split_once(':') {
        name = base.to_owned();
        names.push(name.clone());
    }
    if let Some(undated) = without_date(&name) {
        name = undated;
        names.push(name.clone());
    }
    if name.starts_with("claude-") && name.contains('.') {
        names.push(name.replace('.', "-"));
    }
    names.dedup();
    names
}

/// `name` without a trailing date: `-YYYY-MM-DD`, `-YYYYMMDD` or `@YYYYMMDD`.
fn without_date(name: &str) -> Option<String> {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if let Some((base, date)) = name.rsplit_once(['-', '@'])
        && date.len() == 8
        && digits(date)
    {
        return Some(base.to_owned());
    }
    let parts: Vec<&str> = name.rsplitn(4, '-').collect();
    if let [day, month, year, base] = parts[..]
        && (year.len(), month.len(), day.len()) == (4, 2, 2)
        && digits(year)
        && digits(month)
        && digits(day)
    {
        return Some(base.to_owned());
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsString;

    #[test]
    fn model_names_as_providers_spell_them_find_their_prices() {
        let prices = Prices::builtin();
        let entry = |model: &str| prices.lookup(model).map(|(name, _)| name.to_owned());
        assert_eq!(
            entry("claude-sonnet-4-5-20250929").as_deref(),
            Some("claude-sonnet-4-5")
        );
        assert_eq!(entry("gpt-4.1-2025-04-14").as_deref(), Some("gpt-4.1"));
        assert_eq!(
            entry("openai/gpt-4.1-mini:online").as_deref(),
            Some("gpt-4.1-mini")
        );
        assert_eq!(
            entry("claude-sonnet-4.5").as_deref(),
            Some("claude-sonnet-4-5")
        );
        assert_eq!(
            entry("anthropic/claude-sonnet-4").as_deref(),
            Some("claude-sonnet-4")
        );
        assert_eq!(
            entry("models/gemini-2.5-pro").as_deref(),
            Some("gemini-2.5-pro")
        );
        assert_eq!(
            entry("gpt-5.1-codex-max").as_deref(),
            Some("gpt-5.1-codex-max")
        );
        assert_eq!(entry("test-model"), None);
        assert_eq!(entry("<synthetic>"), None);
        // A date-like tail that is no date stays.
        assert_eq!(without_date("gpt-4o-mini"), None);
        assert_eq!(without_date("model-12345678x"), None);
    }

    #[test]
    fn a_price_is_the_sum_of_every_kind_of_token_at_its_own_price() {
        let price = Price {
            input: 3.0,
            output: 15.0,
            cache_read: 0.3,
            cache_write: 3.75,
            litellm_key: None,
        };
        let tokens = Usage {
            input_tokens: 1_000_000,
            output_tokens: 100_000,
            cache_read_tokens: 2_000_000,
            cache_write_tokens: 400_000,
            reasoning_tokens: 50_000,
        };
        // 3 + 1.5 + 0.6 + 1.5; reasoning is part of the output, not counted again.
        assert!((price.cost(&tokens) - 6.6).abs() < 1e-9);
    }

    #[test]
    fn a_users_table_replaces_and_adds_models() {
        let user = Prices::parse(
            r#"{"format": 1, "date": "2027-01-01", "source": "my contract",
                "models": {"gpt-4.1": {"input": 1, "output": 2}, "in-house": {"input": 0.5, "output": 0.5}}}"#,
            Path::new("user.json"),
        )
        .unwrap();
        let prices = Prices::builtin().clone().overlaid(user);
        assert_eq!(prices.lookup("gpt-4.1-2025-04-14").unwrap().1.input, 1.0);
        assert_eq!(prices.lookup("in-house").unwrap().1.output, 0.5);
        assert!(prices.lookup("claude-sonnet-4-6").is_some());
        assert_eq!(prices.date, "2027-01-01");
        assert!(prices.source.starts_with("my contract; over LiteLLM"));
    }

    #[test]
    fn a_table_that_is_not_one_says_where() {
        let error = |text: &str| {
            Prices::parse(text, Path::new("p.json"))
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            error("{\"format\": 1,\n \"models\": {\"m\": {\"input\": \"1\"}}}"),
            "p.json:2: invalid type: string \"1\", expected f64 at line 2 column 30"
        );
        assert_eq!(
            error(r#"{"format": 2, "models": {}}"#),
            "p.json:1: format 2 (this axt reads format 1)"
        );
        assert_eq!(
            error(r#"{"format": 1, "unit": "USD per token", "models": {}}"#),
            "p.json:1: unit \"USD per token\": prices must be USD per million tokens"
        );
        assert_eq!(
            error(r#"{"format": 1, "models": {"m": {"input": -1, "output": 1}}}"#),
            "p.json:1: m: a price is negative or not a number"
        );
    }

    #[test]
    fn the_users_file_is_named_by_axt_prices_else_the_config_directory() {
        let env = |vars: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                vars.iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| OsString::from(v))
            }
        };
        let both = env(&[("AXT_PRICES", "/p.json"), ("XDG_CONFIG_HOME", "/cfg")]);
        assert_eq!(user_file(&both), Some(PathBuf::from("/p.json")));
        let xdg = env(&[("XDG_CONFIG_HOME", "/cfg"), ("HOME", "/home/u")]);
        assert_eq!(user_file(&xdg), Some(PathBuf::from("/cfg/axt/prices.json")));
        let home = env(&[("XDG_CONFIG_HOME", ""), ("HOME", "/home/u")]);
        assert_eq!(
            user_file(&home),
            Some(PathBuf::from("/home/u/.config/axt/prices.json"))
        );
        assert_eq!(user_file(&env(&[])), None);
    }
}
