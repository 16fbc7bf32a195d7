//! Picks the lane width of a throughput run by measuring it: the first batches of a run
//! try each of [`CANDIDATES`] in turn, and the width with the most states per second is
//! kept for the rest of the run.
//!
//! No static rule picks well. A wider block spreads each operand's fixed cost (index,
//! address, loop) over more lanes, but its slots leave the L2 cache sooner, and it lowers
//! the chance that a latch is 0 in every lane of the block, which product skipping and
//! legal-word skipping rely on: the fastest width differs from game to game
//! (BENCHMARKS.md, "CPU simulator figures moved from module docs (#39)"). Results never depend on the width (every backend's
//! playouts are the same for a seed), so trying widths changes only speed.

/// Lane widths tried, narrowest first.
pub const CANDIDATES: [usize; 3] = [512, 1024, 2048];

/// Batches each width is measured on before one is chosen (interleaved, so a burst of
/// load on the machine does not decide alone).
const MIN_BATCHES: u32 = 2;

/// What one width has measured so far.
#[derive(Clone, Copy, Debug, Default)]
struct Trial {
    batches: u32,
    states: u64,
    seconds: f64,
}

impl Trial {
    fn rate(&self) -> f64 {
        if self.seconds > 0.0 {
            self.states as f64 / self.seconds
        } else {
            0.0
        }
    }
}

/// The lane-width tuner of one CPU backend.
#[derive(Clone, Debug, Default)]
pub struct LaneTuner {
    trials: [Trial; CANDIDATES.len()],
    chosen: Option<usize>,
    compared: usize,
    last: Option<usize>,
}

impl LaneTuner {
    /// The width for a batch of `playouts` run by `steppers` block steppers (one per
    /// thread): the chosen one, else
    /// the least measured width whose blocks the batch fills (a partly filled block
    /// would measure the idle lanes, not the width), narrowest when none fits.
    pub fn pick(&self, playouts: u64, steppers: usize) -> usize {
        if let Some(w) = self.chosen {
            return w;
        }
        let fits = |w: usize| (w * steppers.max(1)) as u64 <= playouts;
        CANDIDATES
            .iter()
            .enumerate()
            .filter(|&(_, &w)| fits(w))
            .min_by_key(|&(i, _)| (self.trials[i].batches, i))
            .map_or(CANDIDATES[0], |(_, &w)| w)
    }

    /// Adds a batch run at width `lanes` that advanced `states` states (joint moves) in
    /// `seconds`; once every width the batch size allowed has its batches, picks the
    /// fastest.
    pub fn record(
        &mut self,
        lanes: usize,
        playouts: u64,
        steppers: usize,
        states: u64,
        seconds: f64,
    ) {
        self.last = Some(lanes);
        if self.chosen.is_some() {
            return;
        }
        let Some(i) = CANDIDATES.iter().position(|&w| w == lanes) else {
            return;
        };
        let t = &mut self.trials[i];
        t.batches += 1;
        t.states += states;
        t.seconds += seconds;
        let fits = |w: usize| (w * steppers.max(1)) as u64 <= playouts;
        let measured = CANDIDATES
            .iter()
            .zip(&self.trials)
            .filter(|(&w, _)| fits(w) || w == CANDIDATES[0]);
        if measured.clone().all(|(_, t)| t.batches >= MIN_BATCHES) {
            self.compared = measured.clone().count();
            self.chosen = measured
                .max_by(|a, b| a.1.rate().total_cmp(&b.1.rate()))
                .map(|(&w, _)| w);
        }
    }

    /// The width chosen, once the measurements are done.
    pub fn chosen(&self) -> Option<usize> {
        self.chosen
    }

    /// How many widths the choice compared (1 when the batches filled no wider block; 0
    /// before the choice).
    pub fn compared(&self) -> usize {
        self.compared
    }

    /// The width of the last batch recorded, chosen or not (`None` before the first).
    pub fn last(&self) -> Option<usize> {
        self.last
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tries_every_width_the_batch_fills_then_keeps_the_fastest() {
        let mut t = LaneTuner::default();
        let batch = 4096;
        let mut seen = Vec::new();
        while t.chosen().is_none() {
            let w = t.pick(batch, 1);
            seen.push(w);
            // 1024 lanes is the fastest here.
            let rate = if w == 1024 { 3.0e6 } else { 2.0e6 };
            t.record(w, batch, 1, 1_000_000, 1.0e6 / rate);
        }
        assert_eq!(t.chosen(), Some(1024));
        assert_eq!(seen.len(), CANDIDATES.len() * MIN_BATCHES as usize);
        for w in CANDIDATES {
            assert_eq!(seen.iter().filter(|&&s| s == w).count(), 2, "{seen:?}");
        }
        assert_eq!(t.pick(batch, 1), 1024);
        t.record(2048, batch, 1, 1, 1e-9);
        assert_eq!(t.pick(batch, 1), 1024, "the choice is final");
    }

    #[test]
    fn widths_a_batch_cannot_fill_are_not_tried() {
        let mut t = LaneTuner::default();
        // Two steppers and 2,048 playouts: 2,048-lane blocks would be half empty.
        let (batch, steppers) = (2048, 2);
        let mut seen = Vec::new();
        while t.chosen().is_none() {
            let w = t.pick(batch, steppers);
            seen.push(w);
            t.record(w, batch, steppers, 1000, if w == 512 { 1.0 } else { 2.0 });
        }
        assert!(!seen.contains(&2048), "{seen:?}");
        assert_eq!(t.chosen(), Some(512));
        assert_eq!(t.compared(), 2);
        // A batch smaller than any block runs at the narrowest width.
        assert_eq!(LaneTuner::default().pick(100, 1), 512);
    }

    #[test]
    fn a_run_too_short_to_measure_reports_its_last_width() {
        let mut t = LaneTuner::default();
        assert_eq!(t.last(), None);
        let w = t.pick(10, 2);
        t.record(w, 10, 2, 90, 1e-4);
        assert_eq!((t.chosen(), t.last()), (None, Some(512)));
        t.record(w, 10, 2, 90, 1e-4);
        assert_eq!((t.chosen(), t.compared()), (Some(512), 1));
    }
}
