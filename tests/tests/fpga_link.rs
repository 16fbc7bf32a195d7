//! FPGA-only checks of the `fpga` backend, beyond the conformance suite (`conformance/`,
//! whose `fpga_sim` subject runs the shared checks on the Verilator model through the
//! board framing): a design built for another game is refused at connect, and the serial
//! port path (`fpga:PORT`) works end to end on a pseudo-terminal bridged to the model.
//!
//! The design (tic-tac-toe, 2 engines, 16 records per engine) is the one of the suite's
//! `fpga_sim` subject and of `host/tests/cli_fpga_run.rs`, so its Verilator model is built
//! once (cached under `$PROPNET_FPGA_SIM_CACHE` or the user cache). Skips (with a message)
//! without Verilator, unless `PROPNET_REQUIRE_TOOLS=1`.

use propnet_fpga::{FpgaBackend, FpgaOptions, FpgaTarget};
use propnet_netlist::{Netlist, ValidNetlist};
use propnet_runtime::backend::Backend;
use propnet_tests::cases::{assert_same, bench_game, job, request, state_two_moves_in};

fn have_verilator() -> bool {
    propnet_tests::tool_available("verilator")
}

fn valid(net: &Netlist) -> ValidNetlist {
    ValidNetlist::new(net.clone()).expect("valid netlist")
}

/// The suite's design options: 2 engines, 16 records per engine.
fn options() -> FpgaOptions {
    let mut opts = FpgaOptions::default();
    opts.design.engines = 2;
    opts.design.records = 16;
    opts
}

/// A design built for another game is refused at connect, with a message that says so.
#[test]
fn another_games_design_is_refused() {
    if !have_verilator() {
        return;
    }
    // Connect to tic-tac-toe's model (built by `tictactoe` above or now) with the
    // connect-four netlist: the hash register does not match.
    let ttt = bench_game("tictactoe");
    let c4 = bench_game("connectfour");
    let err = propnet_fpga::connect_model_for(&valid(&ttt.net), &valid(&c4.net), &options())
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
    let c = bench_game("tictactoe");
    let opts = options();
    // The same design (and so the same cached model) as the suite's.
    let v = valid(&c.net);
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
    // Three jobs: the initial state, a state two joint moves in, and playout indices that
    // wrap past `u32::MAX`.
    let req = request(
        vec![
            job(c.net.initial_state(), 0, 40),
            job(state_two_moves_in(&c.net, 21), 500, 7),
            job(c.net.initial_state(), u32::MAX - 5, 9),
        ],
        21,
        60,
    );
    let got = board.run_batch(&req).unwrap();
    assert_same(&c, &req, &got, "over the serial port");
    drop(board);
    stop.store(true, Ordering::Relaxed);
    let _ = model.kill();
    let _ = model.wait();
    let _ = up.join();
    let _ = down.join();
}
