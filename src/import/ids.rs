//! Run ids an importer makes: file names a later import must find again. Kept to a safe
//! alphabet, bounded in length (a long id keeps its head and ends in a hash of the whole),
//! and distinct within a session.
//!
//! This room owns those three rules; which id a run gets is its store's.

use std::collections::HashSet;

use super::entries::fnv1a_64;

/// The longest run id the importer makes before a `.N` suffix: the recorder takes 200 bytes.
pub(crate) const MAX_ID_BYTES: usize = 180;

/// Run ids become file names: keep them to a safe alphabet.
pub(crate) fn sanitize(id: &str) -> String {
    id.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect::<String>()
        .trim_start_matches('.')
        .to_owned()
}

/// `id` (ASCII, sanitized) if it is short enough, else its head and a hash of the whole.
pub(crate) fn bounded(id: &str) -> String {
    if id.len() <= MAX_ID_BYTES {
        return id.to_owned();
    }
    let mut cut = MAX_ID_BYTES - 17;
    while !id.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}-{:016x}", &id[..cut], fnv1a_64(id.as_bytes()))
}

/// Every run of a session gets a file of its own, under a name the recorder takes. A run id
/// longer than [`MAX_ID_BYTES`] (a corrupt session or agent id) is cut, and a hash of the
/// whole id appended, so that it stays distinct (and the same on every import). A run id
/// another run already has gets `.2`, `.3`, ... in order: two runs under one id were
/// written into one file, the second appended after the first's `run.completed`. Both
/// found by the `import_claude_code` fuzz target.
pub(crate) fn unique<'a>(run_ids: impl Iterator<Item = &'a mut String>) {
    let mut taken: HashSet<String> = HashSet::new();
    for id in run_ids {
        let base = bounded(id);
        let mut run_id = base.clone();
        let mut n = 1;
        while taken.contains(&run_id) {
            n += 1;
            run_id = format!("{base}.{n}");
        }
        taken.insert(run_id.clone());
        *id = run_id;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_id_keeps_its_head_and_ends_in_the_hash_of_the_whole() {
        let id = "ab".repeat(150);
        let name = bounded(&id);
        assert_eq!(name.len(), MAX_ID_BYTES);
        // Pinned: the name a re-import must find again, on any toolchain.
        assert_eq!(name, format!("{}-c3a75328e60159b1", "ab".repeat(81) + "a"));
        assert_eq!(bounded("short"), "short");
    }

    #[test]
    fn ids_taken_twice_get_a_suffix_in_order() {
        let mut ids = vec![
            "a".to_owned(),
            "a".to_owned(),
            "b".to_owned(),
            "a".to_owned(),
        ];
        unique(ids.iter_mut());
        assert_eq!(ids, ["a", "a.2", "b", "a.3"]);
        assert_eq!(sanitize("../x y"), "_x_y");
    }
}
