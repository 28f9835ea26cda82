//! Extras: what servers add to a response that axt has no field for (Azure's filter
//! results, Groq's `x_groq`, OpenRouter's `provider`, token log probabilities, the fields of
//! Responses output items their blocks do not carry, ...), gathered per response and kept
//! as one passthrough record.
//!
//! This file owns the record's shape and when it is kept; which fields count as extras is
//! said by the record shapes (`Wire::extras`, `WireChoice::extras`) and by `items`.

use serde_json::{Map, Value};

use super::State;
use super::wire::Wire;

/// Fields of a response that axt keeps but has no place for (see `Wire::extras` and
/// `WireChoice::extras`), gathered while the response streams and kept as one passthrough
/// record `extras` when the next response begins or the input ends: `{"response": id,
/// <field>: [values]}`, each field with the values it took in order, a value repeated on
/// consecutive chunks listed once; a choice's fields are named `choices[<index>].<field>`.
/// Empty values (null, "", {}, []) say nothing and are not listed.
#[derive(Default)]
pub(super) struct Extras {
    line: u64,
    fields: Vec<(String, Vec<Value>)>,
}

impl Extras {
    pub(super) fn note(&mut self, line: u64, name: &str, value: Option<Value>) {
        let Some(value) = value else { return };
        let empty = match &value {
            Value::Null => true,
            Value::String(text) => text.is_empty(),
            Value::Array(items) => items.is_empty(),
            Value::Object(fields) => fields.is_empty(),
            _ => false,
        };
        if empty {
            return;
        }
        if self.fields.is_empty() {
            self.line = line;
        }
        match self.fields.iter_mut().find(|(known, _)| known == name) {
            Some((_, values)) if values.last() == Some(&value) => {}
            Some((_, values)) => values.push(value),
            None => self.fields.push((name.to_owned(), vec![value])),
        }
    }
}

impl State {
    /// Keeps the extras of the response that ended.
    pub(super) fn keep_extras(&mut self) {
        let extras = std::mem::take(&mut self.extras);
        if extras.fields.is_empty() {
            return;
        }
        let response = self.response_id.clone();
        self.meta.keep(extras.line, "extras", || {
            let mut raw = Map::new();
            raw.insert(
                "response".into(),
                response.map_or(Value::Null, Value::String),
            );
            for (name, values) in extras.fields {
                raw.insert(name, Value::Array(values));
            }
            Value::Object(raw)
        });
    }

    /// Notes a record's extras and its choices'.
    pub(super) fn note_extras(&mut self, wire: &mut Wire<'_>, line: u64) {
        for (name, value) in wire.extras() {
            self.extras.note(line, name, value);
        }
        for choice in wire.choices.iter_mut().flatten() {
            let index = choice.index.unwrap_or(0);
            for (name, value) in choice.extras() {
                self.extras
                    .note(line, &format!("choices[{index}].{name}"), value);
            }
            // Perplexity's reasoning steps say what it searched and fetched; their
            // thoughts are read as thinking, the rest is kept here.
            for message in [&choice.delta, &choice.message].into_iter().flatten() {
                let steps = message.reasoning_steps.clone().map(Value::Array);
                self.extras
                    .note(line, &format!("choices[{index}].reasoning_steps"), steps);
            }
        }
    }
}
