//! The board shell's framing on the Verilator model of a small random design: info
//! registers, a run through the bus, and the bridge's answers to a damaged frame, a bad
//! command, a write while busy and a frame cut short (dropped after its timeout).

use propnet_hdl::shell::frame::{parse_reply, read_request, reply_len, write_request, Status};
use propnet_hdl::shell::{Board, BoardDesign, Clock};
use propnet_hdl::{regs, tools, Options};
use propnet_netlist::playout::reference_playout;
use propnet_netlist::random::{random_netlist, RandomSpec};
use propnet_netlist::validate;
use std::io::{Read, Write};
use std::process::{Child, Command, Stdio};

struct Model {
    child: Child,
}

impl Model {
    fn exchange(&mut self, req: &[u8]) -> (u8, Vec<u32>) {
        let stdin = self.child.stdin.as_mut().unwrap();
        stdin.write_all(req).unwrap();
        stdin.flush().unwrap();
        let out = self.child.stdout.as_mut().unwrap();
        let mut head = [0u8; 4];
        out.read_exact(&mut head).unwrap();
        let mut all = head.to_vec();
        all.resize(reply_len(&head), 0);
        out.read_exact(&mut all[4..]).unwrap();
        let r = parse_reply(&all).expect("a well-formed reply");
        assert_eq!(r.command, req[1], "the reply names the request's command");
        (r.status, r.words)
    }
    fn read(&mut self, addr: u16, n: usize) -> Vec<u32> {
        let (st, w) = self.exchange(&read_request(addr, n));
        assert_eq!(st, Status::Ok as u8);
        w
    }
}

impl Drop for Model {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn framing_on_the_verilator_model() {
    if !tools::available_for_tests("verilator") {
        return;
    }
    let net = random_netlist(7, &RandomSpec::default());
    let info = validate(&net).unwrap();
    let opts = Options {
        prefix: "shell".into(),
        engines: 2,
        rng_stages: 2,
        records: 8,
        ..Options::default()
    };
    let design = propnet_hdl::generate(&net, &info, &opts).unwrap();
    let bd = BoardDesign::new(design, Board::Sim, Clock::Direct { mhz: 100.0 }, 1).unwrap();
    let exe = propnet_hdl::verilator::build_model(&bd, &mut |_| {}).unwrap();
    let child = Command::new(exe)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut m = Model { child };
    let info = m.read(regs::INFO_ENGINES, 10);
    assert_eq!(info[0], 2, "engines");
    assert_eq!(info[1] as usize, net.roles.len());
    assert_eq!(info[2] as usize, net.latches.len());
    let hash = propnet_hdl::netlist_hash(&net);
    assert_eq!((info[4], info[5]), (hash as u32, (hash >> 32) as u32));
    assert_eq!(info[6], regs::MAGIC_VALUE);
    assert_eq!(info[7], 8, "records");
    // A run of 3000 playouts with a base (long enough for a write frame to land during
    // it): the counters are the reference's.
    let (seed, base, playouts, max_steps) = (0x1234_5678_9abc_def0u64, 1000u32, 3000u32, 30u32);
    let params = [seed as u32, (seed >> 32) as u32, playouts, max_steps, base];
    assert_eq!(m.exchange(&write_request(regs::SEED_LO, &params)).0, 0);
    assert_eq!(m.exchange(&write_request(regs::CTRL, &[1])).0, 0);
    // Writes while busy are refused (the run takes far longer than this exchange).
    let busy = m.exchange(&write_request(regs::PLAYOUTS, &[1])).0;
    while m.read(regs::STATUS, 1)[0] & 1 == 0 {}
    let start = net.initial_state();
    let want: Vec<_> = (0..playouts)
        .map(|i| reference_playout(&net, &start, seed, base + i, max_steps))
        .collect();
    let cnt = m.read(regs::PLAYOUTS_DONE, 6);
    assert_eq!(cnt[0], playouts);
    assert_eq!(
        u64::from(cnt[1]),
        want.iter().map(|r| u64::from(r.length)).sum::<u64>()
    );
    let g = m.read(regs::GOAL_SUM_BASE, 2);
    assert_eq!(
        u64::from(g[0]),
        want.iter().map(|r| u64::from(r.goals[0])).sum::<u64>()
    );
    assert_eq!(busy, Status::Busy as u8, "a write during a run");
    // Engine 1's first record is playout base + 1.
    assert_eq!(
        m.exchange(&write_request(regs::RECORD_SELECT, &[1 << 16]))
            .0,
        0
    );
    let words = propnet_hdl::records::record_words(net.roles.len(), net.latches.len());
    let rec = propnet_hdl::records::decode(
        &m.read(regs::RECORD_WINDOW, words),
        net.roles.len(),
        net.latches.len(),
        base,
    )
    .unwrap();
    assert_eq!(rec, want[1]);
    // A damaged frame, a bad command: answered, nothing done.
    let mut bad = write_request(regs::PLAYOUTS, &[7]);
    let n = bad.len();
    bad[n - 1] ^= 0x40;
    assert_eq!(m.exchange(&bad).0, Status::BadCrc as u8);
    let mut cmd = read_request(0, 1);
    cmd[1] = 0x77;
    let crc = propnet_hdl::shell::frame::crc16(&cmd[1..5]);
    cmd[5..].copy_from_slice(&crc.to_le_bytes());
    assert_eq!(m.exchange(&cmd).0, Status::BadCommand as u8);
    // A frame cut short is dropped after the timeout; the next one is answered.
    let part = &read_request(regs::INFO_MAGIC, 1)[..3];
    let stdin = m.child.stdin.as_mut().unwrap();
    stdin.write_all(part).unwrap();
    stdin.flush().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert_eq!(m.read(regs::INFO_MAGIC, 1), vec![regs::MAGIC_VALUE]);
}
