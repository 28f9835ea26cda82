//! Step kinds: the closed vocabulary of what a step is, with an escape hatch for an
//! executor's own kinds.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// What kind of step a `step.*` event is about (the step payload's `kind`).
///
/// The seed's eight kinds, `workflow` for the `run.*` events of a workflow run, and
/// [`Custom`](StepKind::Custom) for a kind of the executor's own. A custom kind is made with
/// [`StepKind::custom`], which reads a built-in name as the built-in kind, so that
/// `"agent"` is never a custom kind; readers do the same with [`StepKind::from_wire`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum StepKind {
    /// `agent`: an AI agent's turn or conversation.
    Agent,
    /// `command`: a shell command.
    Command,
    /// `operation`: an in-process operation of the executor (an HTTP call, a file write).
    Operation,
    /// `terminal`: a workflow's terminal state (success or failure).
    Terminal,
    /// `parallel`: branches that run at once, each a child step.
    Parallel,
    /// `for_each`: a loop over items; its body's steps carry the item's iteration.
    ForEach,
    /// `while`: a loop on a condition; its body's steps carry the iteration.
    While,
    /// `call_workflow`: a sub-workflow run in its own file.
    CallWorkflow,
    /// `workflow`: the kind on the `run.*` events of a workflow run.
    Workflow,
    /// A kind of the executor's own (`approval`, `human_review`, ...); never empty, never a
    /// built-in name.
    Custom(String),
}

impl StepKind {
    /// The built-in kinds, in the order the schema lists them, then `workflow`.
    pub const BUILT_IN: [StepKind; 9] = [
        StepKind::Agent,
        StepKind::Command,
        StepKind::Operation,
        StepKind::Terminal,
        StepKind::Parallel,
        StepKind::ForEach,
        StepKind::While,
        StepKind::CallWorkflow,
        StepKind::Workflow,
    ];

    /// A custom kind; a built-in name gives the built-in kind. An empty name is kept as an
    /// empty custom kind, which the strict writers refuse.
    pub fn custom(name: impl Into<String>) -> Self {
        let name = name.into();
        match StepKind::built_in(&name) {
            Some(kind) => kind,
            None => StepKind::Custom(name),
        }
    }

    /// Reads a wire spelling: a built-in name gives its kind, anything else a custom kind.
    pub fn from_wire(text: &str) -> Self {
        StepKind::built_in(text).unwrap_or_else(|| StepKind::Custom(text.to_owned()))
    }

    /// The wire spelling.
    pub fn as_str(&self) -> &str {
        match self {
            StepKind::Agent => "agent",
            StepKind::Command => "command",
            StepKind::Operation => "operation",
            StepKind::Terminal => "terminal",
            StepKind::Parallel => "parallel",
            StepKind::ForEach => "for_each",
            StepKind::While => "while",
            StepKind::CallWorkflow => "call_workflow",
            StepKind::Workflow => "workflow",
            StepKind::Custom(name) => name,
        }
    }

    /// Whether this is a custom kind.
    pub fn is_custom(&self) -> bool {
        matches!(self, StepKind::Custom(_))
    }

    fn built_in(text: &str) -> Option<StepKind> {
        StepKind::BUILT_IN
            .into_iter()
            .find(|kind| kind.as_str() == text)
    }
}

impl fmt::Display for StepKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl From<&str> for StepKind {
    /// As [`StepKind::from_wire`].
    fn from(text: &str) -> Self {
        StepKind::from_wire(text)
    }
}

impl From<String> for StepKind {
    /// As [`StepKind::custom`]: a built-in name gives its kind.
    fn from(text: String) -> Self {
        StepKind::custom(text)
    }
}

impl PartialEq<str> for StepKind {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for StepKind {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl Serialize for StepKind {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for StepKind {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = std::borrow::Cow::<'de, str>::deserialize(deserializer)?;
        Ok(StepKind::from_wire(&text))
    }
}

#[cfg(test)]
mod tests {
    use super::StepKind;

    #[test]
    fn a_custom_kind_never_shadows_a_built_in_one() {
        assert_eq!(StepKind::custom("for_each"), StepKind::ForEach);
        assert_eq!(
            StepKind::custom("approval"),
            StepKind::Custom("approval".into())
        );
        for kind in StepKind::BUILT_IN {
            assert_eq!(StepKind::from_wire(kind.as_str()), kind);
        }
    }
}
