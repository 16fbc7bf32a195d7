//! The `fpga:sim` backend (the generated engines behind the UART shell, as a Verilator model
//! driven through the board framing) against the CPU backend through the `Backend` trait:
//! identical aggregates and per-playout records on multi-job batches (several start states,
//! seeds, counts, a playout index that wraps), with and without records, on tic-tac-toe,
//! connect four and a simultaneous-move game; and an MCTS search on `fpga:sim` that gives
//! the same statistics and move as on the CPU backend for the same seed and budget.
//!
//! One model build per game (cached under `$PROPNET_FPGA_SIM_CACHE` or the user cache, so a
//! second run of this file builds nothing). Skips (with a message) without Verilator or the
//! shared corpus, unless `PROPNET_REQUIRE_TOOLS=1` / `PROPNET_REQUIRE_SHARED=1`.

use propnet_fpga::{FpgaBackend, FpgaOptions, FpgaTarget};
use propnet_mcts::{Budget, MctsParams, Search};
use propnet_netlist::playout::reference_playout;
use propnet_netlist::{Netlist, ValidNetlist};
use propnet_runtime::backend::{Backend, BatchRequest, Job};
use propnet_sim::{CpuBackend, CpuOptions};
use propnet_tests::{compile_file, shared_file, workspace_root};

fn have_verilator() -> bool {
    propnet_tests::tool_available("verilator")
}

fn valid(net: &Netlist) -> ValidNetlist {
    ValidNetlist::new(net.clone()).expect("valid netlist")
}

/// The `fpga:sim` backend of `net` with 2 engines and 16 records per engine (small
/// buffers, so a job of more playouts is split into several runs).
fn fpga(net: &Netlist) -> FpgaBackend {
    let mut opts = FpgaOptions::default();
    opts.design.engines = 2;
    opts.design.records = 16;
    FpgaBackend::new(valid(net), FpgaTarget::Sim, &opts).unwrap_or_else(|e| panic!("{e}"))
}

fn cpu(net: &Netlist) -> CpuBackend {
    CpuBackend::new(
        valid(net),
        CpuOptions {
            threads: 1,
            lane_width: 64,
            ..Default::default()
        },
    )
    .unwrap()
}

/// Three jobs: the initial state, a state two joint moves in, and a first playout index
/// that wraps past `u32::MAX`.
fn request(net: &Netlist, seed: u64) -> BatchRequest {
    let mid = reference_playout(net, &net.initial_state(), seed ^ 1, 0, 2);
    let mid: Vec<bool> = (0..net.latches.len())
        .map(|l| mid.final_state[l / 64] >> (l % 64) & 1 == 1)
        .collect();
    let job = |start: Vec<bool>, first_playout, count| Job {
        start,
        first_playout,
        count,
    };
    BatchRequest {
        jobs: vec![
            job(net.initial_state(), 0, 40),
            job(mid, 500, 7),
            job(net.initial_state(), u32::MAX - 5, 9),
        ],
        seed,
        max_steps: 60,
        want_records: true,
    }
}

/// Batches with records (two seeds) and without: `fpga:sim` equals the CPU backend.
fn check_batches(what: &str, net: &Netlist, fpga: &mut FpgaBackend) {
    let mut cpu = cpu(net);
    assert!(
        fpga.describe().starts_with("fpga:sim"),
        "{}",
        fpga.describe()
    );
    for seed in [3u64, 0xfeed_0000_0000_0011] {
        let req = request(net, seed);
        let want = cpu.run_batch(&req).unwrap();
        let got = fpga.run_batch(&req).unwrap();
        assert_eq!(got.jobs, want.jobs, "{what} seed {seed}: aggregates");
        assert_eq!(got.records.len(), want.records.len(), "{what}: records");
        for (g, w) in got.records.iter().zip(&want.records) {
            assert_eq!(g, w, "{what} seed {seed}");
        }
        assert!(
            want.jobs.iter().all(|j| j.playouts > 0)
                && want.jobs[0].goal_sums.iter().any(|&g| g > 0),
            "{what}: a batch with goals to compare"
        );
    }
    let lean = BatchRequest {
        want_records: false,
        ..request(net, 99)
    };
    let got = fpga.run_batch(&lean).unwrap();
    assert!(got.records.is_empty());
    assert_eq!(
        got.jobs,
        cpu.run_batch(&lean).unwrap().jobs,
        "{what}: without records"
    );
}

/// The same MCTS search (seed, iteration budget) on `fpga:sim` and on the CPU backend.
fn check_mcts(what: &str, net: &Netlist, fpga: &mut FpgaBackend) {
    let params = MctsParams {
        seed: 5,
        playouts_per_leaf: 4,
        leaves_per_batch: 8,
        max_steps: 60,
        ..Default::default()
    };
    let root = net.initial_state();
    let on_cpu = Search::new(params.clone())
        .run(net, &mut cpu(net), &root, Budget::Iterations(120))
        .unwrap();
    let on_fpga = Search::new(params)
        .run(net, fpga, &root, Budget::Iterations(120))
        .unwrap();
    assert_eq!(on_fpga.roles, on_cpu.roles, "{what}: root statistics");
    assert_eq!(
        on_fpga.best_move(0),
        on_cpu.best_move(0),
        "{what}: best move"
    );
    assert!(on_fpga.best_move(0).is_some(), "{what}: a move");
}

#[test]
fn tictactoe() {
    if have_verilator() {
        let net = compile_file(&workspace_root().join("bench-games/tictactoe.kif"));
        let mut f = fpga(&net);
        check_batches("tictactoe", &net, &mut f);
        check_mcts("tictactoe", &net, &mut f);
    }
}

#[test]
fn connect_four() {
    if have_verilator() {
        let net = compile_file(&workspace_root().join("bench-games/connectfour.kif"));
        check_batches("connectfour", &net, &mut fpga(&net));
    }
}

/// Both roles choose among several moves in the same step.
#[test]
fn simultaneous_moves() {
    let game = "games/ggp-repository/connectFourSimultaneous.kif";
    if let (true, Some(path)) = (have_verilator(), shared_file(game)) {
        let net = compile_file(&path);
        check_batches("c4simultaneous", &net, &mut fpga(&net));
    }
}

/// A design built for another game is refused at connect, with a message that says so.
#[test]
fn another_games_design_is_refused() {
    if !have_verilator() {
        return;
    }
    // Connect to tic-tac-toe's model (built by `tictactoe` above or now) with the
    // connect-four netlist: the hash register does not match.
    let ttt = compile_file(&workspace_root().join("bench-games/tictactoe.kif"));
    let c4 = compile_file(&workspace_root().join("bench-games/connectfour.kif"));
    let mut opts = FpgaOptions::default();
    opts.design.engines = 2;
    opts.design.records = 16;
    let err = propnet_fpga::connect_model_for(&valid(&ttt), &valid(&c4), &opts)
        .err()
        .expect("a netlist-hash mismatch");
    let msg = err.to_string();
    assert!(msg.contains("another netlist"), "{msg}");
}

/// `fpga:PORT` end to end without a board: the tic-tac-toe model's standard input and output
/// bridged to a pseudo-terminal, which the backend opens as a serial port (`serialport`).
#[test]
fn serial_port_path_on_a_pseudo_terminal() {
    use propnet_hdl::shell::{Board, BoardDesign, Clock, DEFAULT_BAUD};
    use serialport::SerialPort;
    use std::io::{Read, Write};
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    if !have_verilator() {
        return;
    }
    let net = compile_file(&workspace_root().join("bench-games/tictactoe.kif"));
    let mut opts = FpgaOptions::default();
    opts.design.engines = 2;
    opts.design.records = 16;
    // The same design (and so the same cached model) as `tictactoe`.
    let v = valid(&net);
    let d = propnet_hdl::generate(&v, v.info(), &opts.design).unwrap();
    let bd = BoardDesign::new(d, Board::Sim, Clock::Direct { mhz: 100.0 }, DEFAULT_BAUD).unwrap();
    let exe = propnet_hdl::verilator::build_model(&bd, &mut |_| {}).unwrap();
    let mut model = std::process::Command::new(exe)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let (mut master, slave) = serialport::TTYPort::pair().expect("a pseudo-terminal");
    let path = slave.name().expect("the pty's name");
    drop(slave);
    let stop = Arc::new(AtomicBool::new(false));
    let mut to_model = model.stdin.take().unwrap();
    let mut from_model = model.stdout.take().unwrap();
    let mut master_w = master.try_clone_native().unwrap();
    let (s1, s2) = (Arc::clone(&stop), Arc::clone(&stop));
    let up = std::thread::spawn(move || {
        let mut buf = [0u8; 512];
        while !s1.load(Ordering::Relaxed) {
            match master.read(&mut buf) {
                Ok(n) if n > 0 => {
                    if to_model
                        .write_all(&buf[..n])
                        .and_then(|()| to_model.flush())
                        .is_err()
                    {
                        break;
                    }
                }
                Ok(_) => {}
                Err(e) if e.kind() == std::io::ErrorKind::TimedOut => {}
                // Until the backend opens the slave side the master reads EIO/hang-up
                // (how soon depends on the load): wait for it instead of giving up.
                Err(_) => std::thread::sleep(std::time::Duration::from_millis(5)),
            }
        }
    });
    let down = std::thread::spawn(move || {
        let mut buf = [0u8; 512];
        while let Ok(n) = from_model.read(&mut buf) {
            if n == 0 || s2.load(Ordering::Relaxed) || master_w.write_all(&buf[..n]).is_err() {
                break;
            }
        }
    });
    let mut board = FpgaBackend::new(v, FpgaTarget::Serial(path.clone()), &opts)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(board.describe().contains(&path), "{}", board.describe());
    let req = request(&net, 21);
    let want = cpu(&net).run_batch(&req).unwrap();
    let got = board.run_batch(&req).unwrap();
    assert_eq!(got.jobs, want.jobs, "over the serial port: aggregates");
    assert_eq!(got.records, want.records, "over the serial port: records");
    drop(board);
    stop.store(true, Ordering::Relaxed);
    let _ = model.kill();
    let _ = model.wait();
    let _ = up.join();
    let _ = down.join();
}
