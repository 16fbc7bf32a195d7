//! The hdl backend's writer (naga-style): [`Options`], a [`Writer`] over the netlist and its
//! analysis, and the [`Design`] it returns (one Verilog file per module plus a testbench).

use crate::{core, engine, goal, names, testbench, threefry, top, Error};
use propnet_netlist::{Netlist, NetlistInfo};
use std::path::{Path, PathBuf};

/// Options of the Verilog writer.
#[derive(Clone, Debug)]
pub struct Options {
    /// Module name prefix (made a legal Verilog identifier that is no keyword by the
    /// crate's namer).
    pub prefix: String,
    /// Number of playout engines (1..=4096).
    pub engines: u32,
    /// Threefry pipeline stages, one of [`threefry::VALID_STAGES`] (0 = combinational).
    /// Default 10 (2 rounds per stage): with 4 rounds per stage (S = 5) the RNG limits the
    /// clock to ~39 MHz on iCE40; S = 20 (1 round) clocks higher but its `S + 1` draw latency
    /// makes playouts shorter than 21 steps wait for the prefetch (see the crate docs'
    /// measurements).
    pub rng_stages: u32,
    /// RNG banks (Threefry pipelines) per role, 1..=4. With 2 or more the idle banks
    /// prefetch the next playouts' first draws, so no fill cycles are lost between
    /// playouts (see [`engine`]); a playout waits only when the bank of the next one has
    /// not had `S + 1` slots to fill since it was freed `banks − 1` playouts earlier. Each
    /// bank costs one Threefry pipeline per role (and thread).
    pub banks: u32,
    /// Interleaved playout threads per engine (C-slow retiming, Leiserson & Saxe,
    /// "Retiming synchronous circuitry", Algorithmica 1991): 1, or 2 = a register level
    /// between the state-only logic (legal, terminal, goal) and the move-dependent next-state
    /// logic, with two playouts in flight in one copy of the logic. With two or more
    /// `banks` each thread gets its own bank pipelines per role.
    pub cslow: u32,
    /// Per-playout record buffer depth per engine (0 = none, the default; at most 65536):
    /// with it every finished playout's record is kept for the host to read over the bus
    /// ([`crate::records`]). A simulation and test feature: the buffers cost
    /// `depth × record bits` of memory per engine.
    pub records: u32,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            prefix: "propnet".into(),
            engines: 1,
            rng_stages: 10,
            banks: 2,
            cslow: 1,
            records: 0,
        }
    }
}

impl Options {
    /// Checks every option's range.
    ///
    /// # Errors
    /// [`Error::BadOption`] naming the first option out of range.
    pub fn check(&self) -> Result<(), Error> {
        if !threefry::VALID_STAGES.contains(&self.rng_stages) {
            return Err(Error::BadOption(format!(
                "rng_stages = {}; must be one of {:?}",
                self.rng_stages,
                threefry::VALID_STAGES
            )));
        }
        if !(1..=2).contains(&self.cslow) {
            return Err(Error::BadOption(format!(
                "cslow = {}; must be 1 or 2",
                self.cslow
            )));
        }
        if !(1..=4).contains(&self.banks) {
            return Err(Error::BadOption(format!(
                "banks = {}; must be 1..=4",
                self.banks
            )));
        }
        if self.records > 1 << 16 {
            return Err(Error::BadOption(format!(
                "records = {}; must be 0..=65536",
                self.records
            )));
        }
        if !(1..=4096).contains(&self.engines) {
            return Err(Error::BadOption(format!(
                "engines = {}; must be 1..=4096",
                self.engines
            )));
        }
        Ok(())
    }
}

/// Module names of a design.
#[derive(Clone, Debug)]
pub struct Names {
    /// Game logic module.
    pub core: String,
    /// Pipelined goal logic module.
    pub goal: String,
    /// RNG module.
    pub threefry: String,
    /// Engine module.
    pub engine: String,
    /// Top module (host interface).
    pub top: String,
    /// Testbench module.
    pub testbench: String,
    /// Board shell: UART receiver.
    pub uart_rx: String,
    /// Board shell: UART transmitter.
    pub uart_tx: String,
    /// Board shell: frame bridge onto the register bus.
    pub bridge: String,
    /// Board shell: the board's top module (clock, reset, UART pins, LEDs).
    pub board: String,
}

impl Names {
    /// Module names for a prefix.
    pub fn new(prefix: &str) -> Self {
        let mut n = names::Namer::new();
        let p = n.fresh(prefix);
        let mut m = |s: &str| n.fresh(&format!("{p}_{s}"));
        Self {
            core: m("core"),
            goal: m("goal"),
            threefry: m("threefry"),
            engine: m("engine"),
            top: m("top"),
            testbench: m("tb"),
            uart_rx: m("uart_rx"),
            uart_tx: m("uart_tx"),
            bridge: m("bridge"),
            board: m("board"),
        }
    }
}

/// One Verilog source file.
#[derive(Clone, Debug)]
pub struct VerilogFile {
    /// File name (`<module>.v`).
    pub name: String,
    /// Verilog text.
    pub text: String,
}

/// Shape facts of a design that reports and the simulator need.
#[derive(Clone, Debug)]
pub struct DesignInfo {
    /// Engines.
    pub engines: u32,
    /// RNG pipeline stages (`S`).
    pub rng_stages: u32,
    /// RNG banks per role (1 = no prefetch).
    pub banks: u32,
    /// Interleaved playout threads per engine.
    pub cslow: u32,
    /// Roles.
    pub roles: usize,
    /// Latches.
    pub latches: usize,
    /// Live logic gates in the core.
    pub gates: usize,
    /// Record buffer depth per engine (0 = none).
    pub records: u32,
    /// The netlist hash the design reports ([`crate::netlist_hash`]).
    pub netlist_hash: u64,
}

/// A generated design: synthesizable sources (core, RNG, engine, top) and a testbench.
#[derive(Clone, Debug)]
pub struct Design {
    /// Module names.
    pub names: Names,
    /// Synthesizable files, dependencies first; the last one holds the top module.
    pub sources: Vec<VerilogFile>,
    /// Simulation testbench (not synthesizable).
    pub testbench: VerilogFile,
    /// Shape facts.
    pub info: DesignInfo,
}

impl Design {
    /// Bytes of Verilog of the engine module's file (0 when there is none).
    pub fn engine_bytes(&self) -> usize {
        let name = format!("{}.v", self.names.engine);
        (self.sources.iter())
            .find(|f| f.name == name)
            .map_or(0, |f| f.text.len())
    }

    /// Writes all files into `dir` (created if needed); returns the source paths (without the
    /// testbench) and the testbench path.
    pub fn write_to(&self, dir: &Path) -> Result<(Vec<PathBuf>, PathBuf), Error> {
        propnet_output::folder(dir)?;
        let write = |f: &VerilogFile| -> Result<PathBuf, Error> {
            let p = dir.join(&f.name);
            propnet_output::write(&p, &f.text)?;
            Ok(p)
        };
        let src = self
            .sources
            .iter()
            .map(write)
            .collect::<Result<Vec<_>, _>>()?;
        Ok((src, write(&self.testbench)?))
    }

    /// File names of the synthesizable sources, dependencies first, as the external tools
    /// get them: they run inside the folder [`Design::write_to`] wrote (a path relative to
    /// the caller's folder would not resolve there).
    pub(crate) fn source_names(&self) -> Vec<String> {
        self.sources.iter().map(|f| f.name.clone()).collect()
    }
}

/// Writes the Verilog playout engine of one netlist: [`Writer::new`] checks the options and
/// the netlist's shape, [`Writer::finish`] writes every module.
pub struct Writer<'a> {
    pub(crate) net: &'a Netlist,
    pub(crate) info: &'a NetlistInfo,
    pub(crate) opts: Options,
    pub(crate) names: Names,
}

impl<'a> Writer<'a> {
    /// Checks `opts` and that `net` has a shape the engine supports.
    ///
    /// # Errors
    /// [`Error::Unsupported`] if `net` has no latch, no input or no role, or more than 2^20
    /// latches; [`Error::BadOption`] for out-of-range options.
    ///
    /// # Panics
    /// If `info` was computed for another netlist.
    pub fn new(net: &'a Netlist, info: &'a NetlistInfo, opts: &Options) -> Result<Self, Error> {
        assert!(info.describes(net), "NetlistInfo of another netlist");
        if net.latches.is_empty() || net.inputs.is_empty() || net.roles.is_empty() {
            return Err(Error::Unsupported(format!(
                "the engine needs at least one latch, input and role (has {}, {}, {}): a game \
                 whose state never changes (no fluent left after optimization) or with no move \
                 has no hardware engine; the cpu, gpu and reference backends play it",
                net.latches.len(),
                net.inputs.len(),
                net.roles.len()
            )));
        }
        if net.latches.len() > (1 << 20) {
            return Err(Error::Unsupported(format!(
                "{} latches; the state bank allows 2^20",
                net.latches.len()
            )));
        }
        opts.check()?;
        Ok(Self {
            net,
            info,
            opts: opts.clone(),
            names: Names::new(&opts.prefix),
        })
    }

    /// Writes every module.
    pub fn finish(self) -> Design {
        let (net, info, opts, names) = (self.net, self.info, &self.opts, &self.names);
        let file = |module: &str, text: String| VerilogFile {
            name: format!("{module}.v"),
            text,
        };
        let core = if opts.cslow == 2 {
            core::write_core_split(net, info, &names.core)
        } else {
            core::write_core(net, info, &names.core)
        };
        let sources = vec![
            file(&names.core, core),
            file(&names.goal, goal::write_goal(net, info, &names.goal)),
            file(
                &names.threefry,
                threefry::write_threefry(&names.threefry, opts.rng_stages),
            ),
            file(&names.engine, engine::write_engine(&self)),
            file(
                &names.top,
                top::write_top(net, names, opts, crate::netlist_hash(net)),
            ),
        ];
        let testbench = file(&names.testbench, testbench::write_testbench(net, names));
        let info = DesignInfo {
            engines: opts.engines,
            rng_stages: opts.rng_stages,
            banks: opts.banks,
            cslow: opts.cslow,
            roles: net.roles.len(),
            latches: net.latches.len(),
            gates: core::live_logic_gates(net, info),
            records: opts.records,
            netlist_hash: crate::netlist_hash(net),
        };
        Design {
            names: self.names,
            sources,
            testbench,
            info,
        }
    }
}

/// Generates the Verilog playout engine for `net` with its analysis `info` (from
/// [`propnet_netlist::validate`]): [`Writer::new`] then [`Writer::finish`].
///
/// # Errors
/// See [`Writer::new`].
pub fn generate(net: &Netlist, info: &NetlistInfo, opts: &Options) -> Result<Design, Error> {
    Ok(Writer::new(net, info, opts)?.finish())
}
