//! Rollouts fed while they run: a search hands a backend new jobs as lanes free up, and
//! gets each job's result as soon as its playouts are done, instead of waiting for a whole
//! batch, whose lanes idle while its longest playouts finish (MCTS leaves' playouts differ
//! in length: on connect four a 256-playout batch kept its lanes about 40 % busy).
//!
//! [`JobFeed`] is the search's side, [`Backend::run_stream`] the backend's. Every backend
//! can stream: the default ([`run_in_batches`]) runs what the feed gives as one batch at a
//! time; the CPU simulator refills each lane from the feed the step it finishes.

use crate::backend::{Backend, BackendError, BatchRequest, Job, JobResult};

/// One job of a stream and the caller's tag for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StreamJob {
    /// Returned with the job's result.
    pub tag: u64,
    /// Start state, first playout index and count, as in a batch.
    pub job: Job,
}

/// The caller's side of a stream: takes finished jobs, gives new ones.
pub trait JobFeed {
    /// Called whenever the backend can take more work or has results: `done` holds the
    /// jobs finished since the last call (tag and result; drain it), `room` the playouts
    /// that could start at once. Returns the next jobs. An empty answer while no playout
    /// of the stream is running or queued ends the stream.
    fn feed(&mut self, done: &mut Vec<(u64, JobResult)>, room: u64) -> Vec<StreamJob>;
    /// Whether the results should carry [`JobResult::amaf`] (asked once, when the stream
    /// starts; a backend that does not compute them leaves them empty). Default `false`.
    fn wants_amaf(&self) -> bool {
        false
    }
}

/// Runs a stream one batch at a time on `backend`: what the feed gives (asked with room for
/// the backend's natural batch) runs as one [`BatchRequest`], its results are the next
/// call's `done`. The default of [`Backend::run_stream`].
///
/// # Errors
/// The backend's error (the stream stops there).
pub fn run_in_batches<B: Backend + ?Sized>(
    backend: &mut B,
    seed: u64,
    max_steps: u32,
    feed: &mut dyn JobFeed,
) -> Result<(), BackendError> {
    let mut done = Vec::new();
    loop {
        let jobs = feed.feed(&mut done, backend.natural_batch().max(1));
        done.clear();
        if jobs.is_empty() {
            return Ok(());
        }
        let tags: Vec<u64> = jobs.iter().map(|j| j.tag).collect();
        let req = BatchRequest {
            jobs: jobs.into_iter().map(|j| j.job).collect(),
            seed,
            max_steps,
            want_records: false,
        };
        let res = backend.run_batch(&req)?;
        done.extend(tags.into_iter().zip(res.jobs));
    }
}
