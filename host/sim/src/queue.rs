//! The playouts of one batch as a queue that the block steppers of all threads draw from.
//!
//! Playouts are numbered globally, job after job; a thread takes [`WorkQueue::GRAB`]
//! consecutive numbers at a time with one atomic add, so lanes are refilled from whatever
//! work is left and every thread stays busy until the whole batch is done (static chunks
//! left a thread idle whenever a batch was smaller than a few chunks). Which thread runs
//! which playout does not matter for the results: a playout depends only on its job's
//! start state, its index and the seed, and aggregates are sums.

use std::sync::atomic::{AtomicU64, Ordering};

/// The playouts of a batch, handed out in runs of consecutive global numbers.
#[derive(Debug)]
pub struct WorkQueue {
    /// `ends[j]`: one past the global number of job `j`'s last playout.
    ends: Vec<u64>,
    next: AtomicU64,
}

impl WorkQueue {
    /// Playouts a thread takes per atomic operation.
    pub const GRAB: u64 = 64;

    /// A queue over jobs with these playout counts.
    pub fn new(counts: impl IntoIterator<Item = u32>) -> Self {
        let mut total = 0u64;
        let ends = counts
            .into_iter()
            .map(|c| {
                total += u64::from(c);
                total
            })
            .collect();
        WorkQueue {
            ends,
            next: AtomicU64::new(0),
        }
    }

    /// Total playouts in the batch.
    pub fn total(&self) -> u64 {
        self.ends.last().copied().unwrap_or(0)
    }

    /// The next run of global playout numbers `start..end`, or `None` when all are taken.
    fn grab(&self) -> Option<(u64, u64)> {
        let total = self.total();
        let start = self.next.fetch_add(Self::GRAB, Ordering::Relaxed);
        (start < total).then(|| (start, (start + Self::GRAB).min(total)))
    }

    /// A cursor for one thread: yields `(job, offset within job)` of the playouts it takes.
    pub fn cursor(&self) -> Cursor<'_> {
        Cursor {
            queue: self,
            next: 0,
            end: 0,
            job: 0,
        }
    }
}

/// One thread's view of a [`WorkQueue`]: the run it holds and the job that run is in.
#[derive(Debug)]
pub struct Cursor<'q> {
    queue: &'q WorkQueue,
    next: u64,
    end: u64,
    job: usize,
}

impl Cursor<'_> {
    /// The next playout as `(job, offset within job)`, or `None` when the batch is done.
    #[inline]
    pub fn take(&mut self) -> Option<(u32, u32)> {
        if self.next == self.end {
            (self.next, self.end) = self.queue.grab()?;
        }
        let g = self.next;
        self.next += 1;
        // Runs handed to one cursor increase, so its job index only moves forward.
        let ends = &self.queue.ends;
        while ends[self.job] <= g {
            self.job += 1;
        }
        let first = if self.job == 0 { 0 } else { ends[self.job - 1] };
        Some((self.job as u32, (g - first) as u32))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_playout_is_handed_out_once_across_cursors() {
        let q = WorkQueue::new([3, 0, 200, 1, 70]);
        let mut seen = Vec::new();
        let mut a = q.cursor();
        let mut b = q.cursor();
        loop {
            let x = a.take();
            let y = b.take();
            seen.extend(x);
            seen.extend(y);
            if x.is_none() && y.is_none() {
                break;
            }
        }
        seen.sort_unstable();
        let mut want = Vec::new();
        for (job, n) in [3u32, 0, 200, 1, 70].into_iter().enumerate() {
            want.extend((0..n).map(|o| (job as u32, o)));
        }
        assert_eq!(seen, want);
        assert_eq!(q.total(), 274);
    }

    #[test]
    fn an_empty_batch_hands_out_nothing() {
        let q = WorkQueue::new([0, 0]);
        assert_eq!(q.cursor().take(), None);
        assert_eq!(WorkQueue::new([]).cursor().take(), None);
    }
}
