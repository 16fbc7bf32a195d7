//! Cutting a batch into dispatchable chunks (pure arithmetic, tested without a device).

/// One dispatch: a contiguous range of the batch's playout sequence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chunk {
    /// First sequence number (over the whole batch).
    pub start: u64,
    /// Playouts in this chunk.
    pub len: u32,
    /// Job table of the chunk: per overlapping job `[first sequence number within the chunk,
    /// playout index of that sequence number, start-state word offset]`, flattened.
    pub jobs: Vec<u32>,
    /// Index (in the request) of the job of each `jobs` entry.
    pub job_ids: Vec<usize>,
}

/// Splits jobs given as `(first_playout, count)` into chunks of at most `max_len` playouts.
/// `state_words` is the size of one packed start state; job `j`'s state sits at word
/// `j * state_words` of the `starts` buffer. Jobs with `count == 0` are skipped.
pub fn plan_chunks(jobs: &[(u32, u32)], state_words: u32, max_len: u32) -> Vec<Chunk> {
    let max_len = max_len.max(1);
    let mut chunks = Vec::new();
    let mut cur: Option<Chunk> = None;
    let mut seq = 0u64;
    for (j, &(first, count)) in jobs.iter().enumerate() {
        let mut done = 0u32;
        while done < count {
            let c = cur.get_or_insert_with(|| Chunk {
                start: seq,
                len: 0,
                jobs: vec![],
                job_ids: vec![],
            });
            let take = (count - done).min(max_len - c.len);
            c.jobs
                .extend([c.len, first.wrapping_add(done), j as u32 * state_words]);
            c.job_ids.push(j);
            c.len += take;
            done += take;
            seq += u64::from(take);
            if c.len == max_len {
                chunks.extend(cur.take());
            }
        }
    }
    chunks.extend(cur);
    chunks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_cover_every_playout_once() {
        let jobs = [(10, 5), (0, 0), (100, 12), (7, 1)];
        for max in [1, 3, 4, 18, 100] {
            let chunks = plan_chunks(&jobs, 2, max);
            let mut seen = Vec::new();
            let mut seq = 0;
            for c in &chunks {
                assert_eq!(c.start, seq);
                assert!(c.len <= max && c.len > 0);
                assert_eq!(c.jobs[0], 0);
                for k in 0..c.len {
                    let e = (0..c.job_ids.len())
                        .rev()
                        .find(|&e| c.jobs[3 * e] <= k)
                        .unwrap();
                    let j = c.job_ids[e];
                    assert_eq!(c.jobs[3 * e + 2], j as u32 * 2);
                    seen.push((j, c.jobs[3 * e + 1] + (k - c.jobs[3 * e])));
                }
                seq += u64::from(c.len);
            }
            let want: Vec<_> = jobs
                .iter()
                .enumerate()
                .flat_map(|(j, &(f, n))| (f..f + n).map(move |p| (j, p)))
                .collect();
            assert_eq!(seen, want, "max {max}");
        }
    }
}
