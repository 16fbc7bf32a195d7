//! The results of a comparison and their forms: the terminal table, CSV and JSON (with the
//! machine stamp). The plots ([`super::plot`]) draw the same rows.

use crate::shard::Sweep;
use crate::stamp::HostStamp;
use propnet_runtime::measure::{format_rate, Sample, Spread};
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

/// How a reasoner fared on a game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "status", content = "reason", rename_all = "snake_case")]
pub enum Status {
    /// Measured.
    Ok,
    /// Not available on this machine (e.g. no GPU adapter), with the reason.
    Absent(String),
    /// Failed to build, crashed, hung or wrote garbage, with what happened.
    Failed(String),
    /// Its trace diverged from the judge's: not measured.
    Diverged(String),
    /// An external reasoner reported figures that cannot be right (why, with the round):
    /// none of its figures on the game count.
    Rejected(String),
}

impl Status {
    /// `ok`, `absent`, `failed`, `diverged` or `rejected`.
    pub fn word(&self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Absent(_) => "absent",
            Status::Failed(_) => "failed",
            Status::Diverged(_) => "diverged",
            Status::Rejected(_) => "rejected",
        }
    }

    /// The reason, empty for `ok`.
    pub fn reason(&self) -> &str {
        match self {
            Status::Ok => "",
            Status::Absent(r) | Status::Failed(r) | Status::Diverged(r) | Status::Rejected(r) => r,
        }
    }
}

/// The correctness gate's result for one reasoner and game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "verification", rename_all = "snake_case")]
pub enum Verification {
    /// `--verify` was not given.
    NotAsked,
    /// Its trace agrees with the judge.
    Agreed {
        /// The engine that judged (`interp` or `netlist`).
        judge: String,
        /// Positions compared.
        positions: usize,
        /// Joint moves replayed.
        joint_moves: usize,
    },
    /// Its trace disagrees (the row is not measured).
    Diverged {
        /// The judge.
        judge: String,
        /// The first divergence.
        summary: String,
    },
    /// No trace could be checked (no trace command, no judge).
    Unverified {
        /// Why not.
        reason: String,
    },
}

impl Verification {
    /// Short text for the table: `-`, `ok (N pos)`, `DIVERGED`, `unverified`.
    pub fn short(&self) -> String {
        match self {
            Verification::NotAsked => "-".into(),
            Verification::Agreed { positions, .. } => format!("ok ({positions} pos)"),
            Verification::Diverged { .. } => "DIVERGED".into(),
            Verification::Unverified { .. } => "unverified".into(),
        }
    }
}

/// One reasoner on one game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// Game label: the file stem, or where games share one the trailing path that tells
    /// them apart (`a/breakthrough`); unique in a report, the key of speedups and plots.
    pub game: String,
    /// Game file as given.
    pub game_path: String,
    /// Reasoner label (`interp`, `cpu:1`, an external's name, …).
    pub reasoner: String,
    /// `interp`, `netlist` or `external`.
    pub kind: String,
    /// What ran: backend description, or the external command line.
    pub description: String,
    /// Worker threads, for the CPU backend.
    pub threads: Option<usize>,
    /// Outcome.
    #[serde(flatten)]
    pub status: Status,
    /// Correctness gate.
    pub verify: Verification,
    /// The external reasoner's `version`.
    pub version: Option<String>,
    /// Compile / initialisation seconds, apart from playouts: for ours the pipeline and
    /// backend set-up (once), for an external its process time outside
    /// `millisecondsTaken` (per round).
    pub compile_seconds: Option<Spread>,
    /// One sample per round.
    pub samples: Vec<Sample>,
    /// Playouts per wall second over the rounds.
    pub playouts_per_second: Option<Spread>,
    /// Joint moves (state changes) per wall second over the rounds.
    pub states_per_second: Option<Spread>,
    /// Playouts per CPU second, when measured.
    pub playouts_per_cpu_second: Option<Spread>,
    /// Median states/s times the netlist's logic gates (netlist reasoners).
    pub gate_evals_per_second: Option<f64>,
    /// Median playouts/s over the baseline's on the same game.
    pub speedup: Option<f64>,
    /// The shard of the sweep that measured it ([`Sweep`]); its machine is that run's.
    #[serde(default)]
    pub shard: Option<u32>,
}

impl Row {
    /// A row with nothing measured yet.
    pub fn new(game: &str, game_path: &str, reasoner: &str, kind: &str) -> Row {
        Row {
            game: game.into(),
            game_path: game_path.into(),
            reasoner: reasoner.into(),
            kind: kind.into(),
            description: String::new(),
            threads: None,
            status: Status::Ok,
            verify: Verification::NotAsked,
            version: None,
            compile_seconds: None,
            samples: Vec::new(),
            playouts_per_second: None,
            states_per_second: None,
            playouts_per_cpu_second: None,
            gate_evals_per_second: None,
            speedup: None,
            shard: None,
        }
    }

    /// Fills the spreads from the samples, and gate-evals/s from `logic_gates`; a
    /// [`Status::Rejected`] row gets none (its figures do not count: no rate, speedup or
    /// bar), its accepted samples stay listed.
    pub fn summarise(&mut self, logic_gates: Option<usize>) {
        if matches!(self.status, Status::Rejected(_)) {
            return;
        }
        let of = |f: fn(&Sample) -> Option<f64>| {
            Spread::of(&self.samples.iter().filter_map(f).collect::<Vec<_>>())
        };
        self.playouts_per_second = of(|s| Some(s.playouts_per_second()));
        self.states_per_second = of(|s| Some(s.states_per_second()));
        self.playouts_per_cpu_second = of(Sample::playouts_per_cpu_second);
        self.gate_evals_per_second = logic_gates
            .zip(self.states_per_second)
            .map(|(g, s)| g as f64 * s.median);
    }
}

/// Sets every row's speedup: its median playouts/s over the `baseline` row's of the same
/// game (none when either is missing).
pub fn set_speedups(rows: &mut [Row], baseline: &str) {
    let base: Vec<(String, f64)> = rows
        .iter()
        .filter(|r| r.reasoner == baseline)
        .filter_map(|r| Some((r.game.clone(), r.playouts_per_second?.median)))
        .collect();
    for r in rows.iter_mut() {
        let b = base.iter().find(|(g, _)| *g == r.game).map(|(_, b)| *b);
        r.speedup = r
            .playouts_per_second
            .zip(b)
            .filter(|(_, b)| *b > 0.0)
            .map(|(p, b)| p.median / b);
    }
}

/// Everything a comparison produced.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// Where it ran.
    pub machine: HostStamp,
    /// The command line.
    pub command: Vec<String>,
    /// Seconds per sample.
    pub seconds: f64,
    /// Rounds (samples per reasoner and game, interleaved).
    pub rounds: u32,
    /// Step limit per playout.
    pub max_steps: u32,
    /// Playouts per sample of the built-in reasoners, when fixed (`--playouts`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub playouts: Option<u64>,
    /// The baseline reasoner of the speedups.
    pub baseline: String,
    /// One row per game and reasoner, in run order.
    pub rows: Vec<Row>,
    /// The sweep the rows belong to, its cells and where they ran (absent in reports
    /// written before sweeps were recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sweep: Option<Sweep>,
}

/// `median [min–max]` of a rate, or `-`.
pub fn spread_text(s: Option<Spread>) -> String {
    s.map_or("-".into(), |s| {
        format!(
            "{} [{}–{}]",
            format_rate(s.median),
            format_rate(s.min),
            format_rate(s.max)
        )
    })
}

/// A speedup as the table and plots show it: `12.3x`.
pub fn speedup_text(s: Option<f64>) -> String {
    s.map_or("-".into(), |s| format!("{}x", format_rate(s)))
}

/// A median time in seconds: `2.16`, `0.172`, `<0.001`, or `-`.
fn seconds_text(s: Option<Spread>) -> String {
    match s.map(|s| s.median) {
        None => "-".into(),
        Some(m) if m < 0.001 => "<0.001".into(),
        Some(m) if m < 1.0 => format!("{m:.3}"),
        Some(m) => format!("{m:.2}"),
    }
}

impl Report {
    /// The terminal table: one line per row, then the reasons of rows that are not ok.
    pub fn table(&self) -> String {
        let head = [
            "game",
            "reasoner",
            "playouts/s median [min–max]",
            "states/s median",
            "speedup",
            "compile s",
            "verify",
            "status",
        ];
        let cells: Vec<[String; 8]> = self
            .rows
            .iter()
            .map(|r| {
                [
                    r.game.clone(),
                    r.reasoner.clone(),
                    spread_text(r.playouts_per_second),
                    r.states_per_second
                        .map_or("-".into(), |s| format_rate(s.median)),
                    speedup_text(r.speedup),
                    seconds_text(r.compile_seconds),
                    r.verify.short(),
                    r.status.word().into(),
                ]
            })
            .collect();
        let mut width: Vec<usize> = head.iter().map(|h| h.chars().count()).collect();
        for c in &cells {
            for (w, x) in width.iter_mut().zip(c) {
                *w = (*w).max(x.chars().count());
            }
        }
        let mut out = String::new();
        let line = |out: &mut String, c: &[&str]| {
            let parts: Vec<String> = c
                .iter()
                .zip(&width)
                .map(|(x, w)| format!("{x}{}", " ".repeat(w - x.chars().count())))
                .collect();
            let _ = writeln!(out, "{}", parts.join("  ").trim_end());
        };
        line(&mut out, &head);
        for c in &cells {
            line(&mut out, &c.iter().map(String::as_str).collect::<Vec<_>>());
        }
        let sample = match self.playouts {
            Some(p) => format!("{p} playouts ({} s for external reasoners)", self.seconds),
            None => format!("{} s", self.seconds),
        };
        let _ = writeln!(
            out,
            "speedup: median playouts/s over {}'s on the same game; {} round(s) of {sample}, \
             interleaved",
            self.baseline, self.rounds
        );
        for r in &self.rows {
            if r.status != Status::Ok {
                let _ = writeln!(
                    out,
                    "{} / {}: {}: {}",
                    r.game,
                    r.reasoner,
                    r.status.word(),
                    r.status.reason()
                );
            }
            if let (Status::Ok, Verification::Unverified { reason: why }) = (&r.status, &r.verify) {
                let _ = writeln!(out, "{} / {}: unverified: {why}", r.game, r.reasoner);
            }
        }
        match &self.sweep {
            Some(sw) if sw.shards > 1 || sw.runs.len() > 1 => out.push_str(&sw.where_ran()),
            _ => {
                let _ = writeln!(out, "machine: {}", self.machine.summary());
            }
        }
        out
    }

    /// The machine that measured `row`: its shard's, or the report's.
    pub fn machine_of(&self, row: &Row) -> &HostStamp {
        self.sweep
            .as_ref()
            .zip(row.shard)
            .and_then(|(sw, k)| sw.runs.iter().find(|run| run.shard.index == k))
            .map_or(&self.machine, |run| &run.machine)
    }

    /// The CSV: a header line, then one line per row (numbers unformatted; the `*_text`
    /// columns hold the table's text).
    pub fn csv(&self) -> String {
        let mut out = String::from(
            "game,reasoner,kind,threads,status,reason,verify,rounds,\
             playouts_per_s_median,playouts_per_s_min,playouts_per_s_max,\
             states_per_s_median,states_per_s_min,states_per_s_max,\
             playouts_per_cpu_s_median,gate_evals_per_s,speedup,compile_s_median,\
             playouts_per_s_text,speedup_text,description,cpu,cores,os,gpu,propnet_version,git_commit,\
             shard,host\n",
        );
        let num = |x: Option<f64>| x.map_or(String::new(), |v| format!("{v}"));
        for r in &self.rows {
            let m = self.machine_of(r);
            let (p, s) = (r.playouts_per_second, r.states_per_second);
            let fields = [
                r.game.clone(),
                r.reasoner.clone(),
                r.kind.clone(),
                r.threads.map_or(String::new(), |t| t.to_string()),
                r.status.word().into(),
                r.status.reason().into(),
                r.verify.short(),
                r.samples.len().to_string(),
                num(p.map(|x| x.median)),
                num(p.map(|x| x.min)),
                num(p.map(|x| x.max)),
                num(s.map(|x| x.median)),
                num(s.map(|x| x.min)),
                num(s.map(|x| x.max)),
                num(r.playouts_per_cpu_second.map(|x| x.median)),
                num(r.gate_evals_per_second),
                num(r.speedup),
                num(r.compile_seconds.map(|x| x.median)),
                p.map_or(String::new(), |x| format_rate(x.median)),
                r.speedup.map_or(String::new(), |_| speedup_text(r.speedup)),
                r.description.clone(),
                m.cpu.clone(),
                m.cores.to_string(),
                m.os.clone(),
                m.gpu.clone().unwrap_or_default(),
                m.propnet_version.clone(),
                m.git_commit.clone(),
                r.shard.map_or(String::new(), |k| k.to_string()),
                m.host.clone(),
            ];
            let line: Vec<String> = fields.iter().map(|f| csv_field(f)).collect();
            out.push_str(&line.join(","));
            out.push('\n');
        }
        out
    }
}

/// A CSV field on one line (line breaks become spaces; the JSON keeps them), quoted when
/// it holds a comma or quote (RFC 4180).
pub fn csv_field(s: &str) -> String {
    let s = s.replace("\r\n", " ").replace(['\n', '\r'], " ");
    if s.contains([',', '"']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(game: &str, reasoner: &str, rates: &[f64]) -> Row {
        let mut r = Row::new(game, game, reasoner, "netlist");
        r.samples = rates
            .iter()
            .map(|&p| Sample {
                playouts: (p * 2.0) as u64,
                states: (p * 20.0) as u64,
                seconds: 2.0,
                cpu_seconds: None,
            })
            .collect();
        r.summarise(Some(100));
        r
    }

    #[test]
    fn speedups_table_and_csv() {
        let mut rows = vec![
            row("g", "interp", &[10.0, 12.0, 11.0]),
            row("g", "cpu:1", &[1000.0, 1100.0, 1200.0]),
            row("h", "cpu:1", &[5.0]),
        ];
        rows[2].status = Status::Failed("crashed, with a comma".into());
        set_speedups(&mut rows, "interp");
        assert_eq!(rows[0].speedup, Some(1.0));
        assert_eq!(rows[1].speedup, Some(100.0));
        assert_eq!(rows[2].speedup, None, "no baseline on h");
        assert_eq!(rows[1].gate_evals_per_second, Some(100.0 * 11000.0));
        let rep = Report {
            machine: HostStamp::detect(None),
            command: vec![],
            seconds: 2.0,
            rounds: 3,
            max_steps: 100,
            playouts: None,
            baseline: "interp".into(),
            rows,
            sweep: None,
        };
        let t = rep.table();
        assert!(t.contains("1.10k [1.00k–1.20k]"), "{t}");
        assert!(t.contains("100x"), "{t}");
        assert!(
            t.contains("h / cpu:1: failed: crashed, with a comma"),
            "{t}"
        );
        let csv = rep.csv();
        assert_eq!(csv.lines().count(), 4);
        assert!(csv.contains("\"crashed, with a comma\""), "{csv}");
    }
}
