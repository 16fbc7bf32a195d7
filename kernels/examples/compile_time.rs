use propnet_compiler::netlist as json;
use propnet_kernels::runner::GpuRunner;
use propnet_kernels::wgsl::{Layout, Options};
use std::time::Instant;
fn main() {
    for game in std::env::args().skip(1) {
        let net = json::from_json(&std::fs::read_to_string(&game).unwrap()).unwrap();
        for layout in [Layout::Table, Layout::Inline] {
            let t = Instant::now();
            let r = GpuRunner::new(&net, &Options { layout, ..Default::default() });
            println!("{game} {layout:?}: {:.1}s lines {} ok {}", t.elapsed().as_secs_f64(), r.as_ref().map(|r| r.kernel().wgsl.lines().count()).unwrap_or(0), r.is_ok());
        }
    }
}
