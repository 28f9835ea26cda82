//! A run's model responses between their first `message.assistant` and the run's end, in
//! memory bounded whatever the run's length.
//!
//! A response's `llm_calls` row can only be written when its run ends: its model may be
//! named by an agent step that completes later, its tokens by the run's total (a run's
//! only response), and its message id may come back after other events (the parts of one
//! response a provider interleaves with server-side calls), adding blocks to it. So every
//! response waits, and a run of a hundred thousand responses would hold a hundred
//! thousand rows. [`Responses`] holds the latest [`WINDOW`] in memory and moves older ones,
//! in order, to a spill file (JSON lines, unlinked as soon as it is created, so nothing is
//! left behind whatever happens); what comes back for a spilled response waits as a small
//! [`Patch`] applied when the file is read back. What stays in memory per response is its
//! message id's digest (the first 128 bits of its SHA-256, to know it when it comes back)
//! and its number: 20 bytes and the hash map's share, two megabytes for 100,000 responses.
//!
//! This file owns that holding. It must not decide what a response is or what its row
//! says (`rows.rs` does both).

use std::collections::{HashMap, VecDeque};
use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Seek, SeekFrom, Write};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// Responses held in memory; older ones are spilled.
pub(crate) const WINDOW: usize = 1024;

/// What a response's row needs from the events, before the run's end completes it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Response {
    /// `seq` of its first `message.assistant`.
    pub(crate) seq: i64,
    /// The path of the step it happened in.
    pub(crate) step_path: String,
    /// That step's iteration.
    pub(crate) iteration: i64,
    /// The provider's message id.
    pub(crate) response_id: Option<String>,
    /// When the model was asked.
    pub(crate) started_at: Option<i64>,
    /// The time of its last `message.assistant`.
    pub(crate) ended_at: Option<i64>,
    /// Content blocks.
    pub(crate) n_blocks: i64,
    /// Whether it holds a `thinking` block.
    pub(crate) has_thinking: bool,
    /// Tool calls it asked for.
    pub(crate) n_tool_calls: i64,
}

/// More of a response: one `message.assistant` of it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Patch {
    /// The event's time.
    pub(crate) ended_at: Option<i64>,
    /// Its blocks.
    pub(crate) n_blocks: i64,
    /// Whether one is `thinking`.
    pub(crate) has_thinking: bool,
    /// Its tool calls.
    pub(crate) n_tool_calls: i64,
}

impl Patch {
    fn apply(&self, response: &mut Response) {
        response.ended_at = self.ended_at.or(response.ended_at);
        response.n_blocks += self.n_blocks;
        response.has_thinking |= self.has_thinking;
        response.n_tool_calls += self.n_tool_calls;
    }

    /// `self`, then `later`, as one patch.
    fn then(&mut self, later: &Patch) {
        self.ended_at = later.ended_at.or(self.ended_at);
        self.n_blocks += later.n_blocks;
        self.has_thinking |= later.has_thinking;
        self.n_tool_calls += later.n_tool_calls;
    }
}

/// A run's responses, in order of first appearance (see the module docs).
pub(crate) struct Responses<'a> {
    /// Where a spill file is created.
    spill_dir: &'a Path,
    /// The latest responses; the first is response number `spilled`.
    window: VecDeque<Response>,
    /// Responses moved to `spill`, the oldest ones.
    spilled: usize,
    spill: Option<BufWriter<File>>,
    /// What came back for spilled responses, by number.
    patches: HashMap<usize, Patch>,
    /// The digest of a message id, to its response's number.
    ids: HashMap<[u8; 16], u32>,
}

/// Names the spill files of one process apart.
static SPILLS: AtomicU64 = AtomicU64::new(0);

fn digest(id: &str) -> [u8; 16] {
    let full = Sha256::digest(id.as_bytes());
    let mut key = [0u8; 16];
    key.copy_from_slice(&full[..16]);
    key
}

impl<'a> Responses<'a> {
    /// None yet; a spill file, when one is needed, goes in `spill_dir`.
    pub(crate) fn new(spill_dir: &'a Path) -> Self {
        Responses {
            spill_dir,
            window: VecDeque::new(),
            spilled: 0,
            spill: None,
            patches: HashMap::new(),
            ids: HashMap::new(),
        }
    }

    /// How many responses there are.
    pub(crate) fn len(&self) -> usize {
        self.spilled + self.window.len()
    }

    /// How many are held in memory.
    pub(crate) fn held(&self) -> usize {
        self.window.len()
    }

    /// The number of the response of message id `id`, if one was added.
    pub(crate) fn find(&self, id: &str) -> Option<usize> {
        self.ids.get(&digest(id)).map(|&n| n as usize)
    }

    /// The message id of response `number` as the caller knows it: whether `id` is it.
    pub(crate) fn is(&self, number: usize, id: Option<&str>) -> bool {
        match number.checked_sub(self.spilled) {
            Some(index) => self.window[index].response_id.as_deref() == id,
            // Spilled: only a response with an id can be found again, by its digest.
            None => id.is_some_and(|id| self.find(id) == Some(number)),
        }
    }

    /// Adds a response; returns its number.
    pub(crate) fn push(&mut self, response: Response) -> io::Result<usize> {
        let number = self.len();
        if let Some(id) = &response.response_id {
            let number = u32::try_from(number).unwrap_or(u32::MAX);
            self.ids.insert(digest(id), number);
        }
        self.window.push_back(response);
        if self.window.len() > WINDOW {
            self.spill_oldest()?;
        }
        Ok(number)
    }

    fn spill_oldest(&mut self) -> io::Result<()> {
        let Some(oldest) = self.window.pop_front() else {
            return Ok(());
        };
        if self.spill.is_none() {
            let n = SPILLS.fetch_add(1, Ordering::Relaxed);
            let path = self.spill_dir.join(format!("responses-{n}.spill"));
            let file = crate::record::private_options()
                .read(true)
                .write(true)
                .create_new(true)
                .open(&path)?;
            // Unlinked now: the open file is all there is, gone with it whatever happens.
            std::fs::remove_file(&path)?;
            self.spill = Some(BufWriter::new(file));
        }
        let spill = self.spill.as_mut().expect("created above");
        serde_json::to_writer(&mut *spill, &oldest)?;
        spill.write_all(b"\n")?;
        self.spilled += 1;
        Ok(())
    }

    /// Adds one `message.assistant` to response `number`.
    pub(crate) fn extend(&mut self, number: usize, patch: Patch) {
        match number.checked_sub(self.spilled) {
            Some(index) => patch.apply(&mut self.window[index]),
            None => self.patches.entry(number).or_default().then(&patch),
        }
    }

    /// Every response, in order, each once, and the holding emptied.
    pub(crate) fn drain(
        &mut self,
        mut each: impl FnMut(Response) -> io::Result<()>,
    ) -> io::Result<()> {
        if let Some(spill) = self.spill.take() {
            let mut file = spill.into_inner().map_err(io::IntoInnerError::into_error)?;
            file.seek(SeekFrom::Start(0))?;
            let mut number = 0;
            for line in BufReader::new(file).lines() {
                let mut response: Response = serde_json::from_str(&line?)?;
                if let Some(patch) = self.patches.get(&number) {
                    patch.apply(&mut response);
                }
                each(response)?;
                number += 1;
            }
            if number != self.spilled {
                return Err(io::Error::other(format!(
                    "a spill file of model responses held {number} of {}",
                    self.spilled
                )));
            }
        }
        for response in std::mem::take(&mut self.window) {
            each(response)?;
        }
        self.spilled = 0;
        self.patches.clear();
        self.ids.clear();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn response(n: usize, id: Option<String>) -> Response {
        Response {
            seq: n as i64,
            step_path: "agent".to_owned(),
            response_id: id,
            ended_at: Some(n as i64),
            n_blocks: 1,
            ..Response::default()
        }
    }

    #[test]
    fn spilled_responses_come_back_in_order_with_what_came_later() {
        let dir = std::env::temp_dir().join(format!("axt-responses-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut responses = Responses::new(&dir);
        let total = WINDOW * 3 + 7;
        for n in 0..total {
            let id = (n % 2 == 0).then(|| format!("msg_{n}"));
            assert_eq!(responses.push(response(n, id)).unwrap(), n);
        }
        assert_eq!(responses.held(), WINDOW);
        // The spill file is unlinked from the start: nothing in the directory.
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
        // Response 2 (spilled) and the last with an id (held) come back, twice.
        let late = Patch {
            ended_at: Some(9_999),
            n_blocks: 2,
            has_thinking: true,
            n_tool_calls: 1,
        };
        for id in ["msg_2", &format!("msg_{}", total - 1 - (total - 1) % 2)] {
            let number = responses.find(id).unwrap();
            assert!(responses.is(number, Some(id)));
            assert!(!responses.is(number, Some("msg_other")));
            responses.extend(number, late);
            responses.extend(
                number,
                Patch {
                    ended_at: None,
                    ..late
                },
            );
        }
        assert_eq!(responses.find("msg_1"), None);
        let mut out = Vec::new();
        responses
            .drain(|r| {
                out.push(r);
                Ok(())
            })
            .unwrap();
        assert_eq!(out.len(), total);
        let last_with_id = total - 1 - (total - 1) % 2;
        for (n, r) in out.iter().enumerate() {
            let mut expected = response(n, (n % 2 == 0).then(|| format!("msg_{n}")));
            if n == 2 || n == last_with_id {
                expected.ended_at = Some(9_999);
                expected.n_blocks = 5;
                expected.has_thinking = true;
                expected.n_tool_calls = 2;
            }
            assert_eq!(r, &expected, "response {n}");
        }
        assert_eq!(responses.len(), 0);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
