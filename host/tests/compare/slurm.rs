//! Issue #44: a sweep run for real as a Slurm job array. The test starts a single-node
//! cluster of its own (munged, slurmctld and slurmd from Debian's munge and slurm-wlm,
//! with a fresh key, configuration and state in a temp folder, on 127.0.0.1 and ports it
//! picks), submits `compare --shard $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT` as a
//! 3-task array, merges the tasks' folders and compares the merge with the unsharded run;
//! then it stops every daemon. Without Slurm it skips with the reason, unless
//! `PROPNET_REQUIRE_TOOLS=1` (CI) makes that a failure.

use super::shard::{report, sweep_command, timeless};
use crate::support::{dir, run_with, wait_bounded, Outcome};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The programs the test needs.
const TOOLS: &[&str] = &[
    "munged",
    "slurmctld",
    "slurmd",
    "sbatch",
    "sinfo",
    "scontrol",
];

/// Whether `tool` is on the PATH (or in /usr/sbin, where Debian puts the daemons).
fn find(tool: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(["/usr/sbin".into(), "/sbin".into()])
        .map(|d| d.join(tool))
        .find(|p| p.is_file())
}

/// A free TCP port on 127.0.0.1 (bound, then released for the daemon).
fn free_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    l.local_addr().unwrap().port()
}

/// The single-node cluster; dropping it stops every daemon.
struct Cluster {
    root: PathBuf,
    conf: PathBuf,
    daemons: Vec<(String, Child)>,
}

impl Drop for Cluster {
    fn drop(&mut self) {
        for (_, c) in &mut self.daemons {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// This machine's short host name: slurmctld runs only on the host its configuration
/// names.
fn host_name() -> String {
    let h = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    h.trim()
        .split('.')
        .next()
        .unwrap_or("localhost")
        .to_string()
}

fn user_name() -> String {
    let o = Command::new("id").arg("-un").output().expect("id -un");
    String::from_utf8_lossy(&o.stdout).trim().to_string()
}

impl Cluster {
    /// Writes the key and configuration under `root` and starts the daemons.
    fn start(root: &Path) -> Cluster {
        let _ = std::fs::remove_dir_all(root);
        for d in ["munge", "state", "spool", "log"] {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        let key = root.join("munge/munge.key");
        let mut bytes = vec![0u8; 1024];
        use std::io::Read;
        std::fs::File::open("/dev/urandom")
            .and_then(|mut f| f.read_exact(&mut bytes))
            .expect("random bytes for the munge key");
        std::fs::write(&key, bytes).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o600)).unwrap();
        std::fs::set_permissions(root.join("munge"), std::fs::Permissions::from_mode(0o711))
            .unwrap();
        let socket = root.join("munge/socket");
        let conf = root.join("slurm.conf");
        std::fs::write(&conf, config(root, &socket)).unwrap();
        let mut c = Cluster {
            root: root.to_path_buf(),
            conf,
            daemons: Vec::new(),
        };
        let r = |p: &str| root.join(p).display().to_string();
        c.spawn(
            "munged",
            &[
                "-F",
                "-f",
                "-S",
                &socket.display().to_string(),
                &format!("--key-file={}", key.display()),
                &format!("--log-file={}", r("log/munged.log")),
                &format!("--pid-file={}", r("munge/munged.pid")),
                &format!("--seed-file={}", r("munge/munged.seed")),
            ],
        );
        c.wait_for("munged's socket", || socket.exists());
        c.spawn("slurmctld", &["-D", "-i"]);
        c.spawn("slurmd", &["-D"]);
        c.wait_for("the node to be idle", || {
            c.tool("sinfo", &["-h", "-o", "%T"], Duration::from_secs(20))
                .is_some_and(|o| o.out.trim() == "idle")
        });
        c
    }

    /// Starts daemon `name` in the foreground with `args`, its output in log/NAME.out.
    fn spawn(&mut self, name: &str, args: &[&str]) {
        let log = std::fs::File::create(self.root.join(format!("log/{name}.out"))).unwrap();
        let child = Command::new(find(name).expect(name))
            .args(args)
            .env("SLURM_CONF", &self.conf)
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap_or_else(|e| panic!("starting {name}: {e}"));
        self.daemons.push((name.into(), child));
    }

    /// Runs a Slurm client `tool` within `limit`; `None` if it fails.
    fn tool(&self, tool: &str, args: &[&str], limit: Duration) -> Option<Outcome> {
        let child = Command::new(find(tool)?)
            .args(args)
            .env("SLURM_CONF", &self.conf)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .ok()?;
        let o = wait_bounded(child, args, limit);
        (o.code == Some(0)).then_some(o)
    }

    /// Polls `ready` for up to 60 s; panics with the daemons' logs after that.
    fn wait_for(&self, what: &str, mut ready: impl FnMut() -> bool) {
        let t0 = Instant::now();
        while !ready() {
            assert!(
                t0.elapsed() < Duration::from_secs(60),
                "waiting for {what}: {}",
                self.logs()
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// The tail of every log, for a failure's message.
    fn logs(&self) -> String {
        let mut out = String::new();
        for e in std::fs::read_dir(self.root.join("log"))
            .into_iter()
            .flatten()
            .flatten()
        {
            let text = std::fs::read_to_string(e.path()).unwrap_or_default();
            let tail: Vec<&str> = text.lines().rev().take(15).collect();
            let tail: Vec<&str> = tail.into_iter().rev().collect();
            out.push_str(&format!(
                "\n--- {}\n{}",
                e.path().display(),
                tail.join("\n")
            ));
        }
        out
    }
}

/// slurm.conf of the one-node cluster: 127.0.0.1 only (`NoInAddrAny`), no cgroups, no
/// accounting, every file under `root`.
fn config(root: &Path, socket: &Path) -> String {
    let host = host_name();
    let user = user_name();
    let r = |p: &str| root.join(p).display().to_string();
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    format!(
        "ClusterName=propnettest\n\
         SlurmctldHost={host}(127.0.0.1)\n\
         SlurmctldPort={}\n\
         SlurmdPort={}\n\
         CommunicationParameters=NoInAddrAny,NoCtldInAddrAny\n\
         AuthType=auth/munge\n\
         CredType=cred/munge\n\
         AuthInfo=socket={}\n\
         SlurmUser={user}\n\
         SlurmdUser={user}\n\
         StateSaveLocation={}\n\
         SlurmdSpoolDir={}\n\
         SlurmctldPidFile={}\n\
         SlurmdPidFile={}\n\
         SlurmctldLogFile={}\n\
         SlurmdLogFile={}\n\
         ProctrackType=proctrack/linuxproc\n\
         TaskPlugin=task/none\n\
         JobAcctGatherType=jobacct_gather/none\n\
         AccountingStorageType=accounting_storage/none\n\
         SelectType=select/cons_tres\n\
         SelectTypeParameters=CR_CPU\n\
         MpiDefault=none\n\
         ReturnToService=2\n\
         NodeName={host} NodeAddr=127.0.0.1 CPUs={cpus} State=UNKNOWN\n\
         PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP\n",
        free_port(),
        free_port(),
        socket.display(),
        r("state"),
        r("spool"),
        r("slurmctld.pid"),
        r("slurmd.pid"),
        r("log/slurmctld.log"),
        r("log/slurmd.log"),
    )
}

/// `s` quoted for the shell: `'…'`, a `'` inside as `'\''`.
fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// The job script: one shard of the sweep per array task, each into its own folder
/// `OUT/shard-K`.
fn job_script(out: &Path) -> String {
    let mut cmd = vec![env!("CARGO_BIN_EXE_propnet").to_string()];
    let sweep = sweep_command(out, &[]);
    // The sweep's arguments without its `--out OUT`.
    cmd.extend(sweep[..sweep.len() - 2].iter().cloned());
    let quoted: Vec<String> = cmd.iter().map(|a| quote(a)).collect();
    format!(
        "#!/bin/sh\nset -e\nexec {} --shard \"$SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT\" \
         --out {}/shard-\"$SLURM_ARRAY_TASK_ID\"\n",
        quoted.join(" "),
        quote(&out.display().to_string())
    )
}

#[test]
fn a_three_task_slurm_job_array_merges_to_the_unsharded_run() {
    let missing: Vec<&str> = TOOLS
        .iter()
        .copied()
        .filter(|t| find(t).is_none())
        .collect();
    if !missing.is_empty() {
        let why = format!(
            "Slurm is not installed ({} not found; scripts/setup.sh installs slurmctld, slurmd, \
             slurm-client and munge)",
            missing.join(", ")
        );
        assert!(
            std::env::var("PROPNET_REQUIRE_TOOLS").as_deref() != Ok("1"),
            "PROPNET_REQUIRE_TOOLS=1: {why}"
        );
        eprintln!("skipping the Slurm job-array test: {why}");
        return;
    }
    let root = dir().join("slurm");
    let cluster = Cluster::start(&root.join("cluster"));
    let out = root.join("sweep");
    std::fs::create_dir_all(&out).unwrap();
    let script = out.join("sweep.sh");
    std::fs::write(&script, job_script(&out)).unwrap();
    let log = out.join("slurm-%A_%a.log").display().to_string();
    let submitted = cluster.tool(
        "sbatch",
        &[
            "--wait",
            "--array=0-2",
            "--output",
            &log,
            &script.display().to_string(),
        ],
        Duration::from_secs(480),
    );
    let logs = || {
        let mut s = cluster.logs();
        for e in std::fs::read_dir(&out).into_iter().flatten().flatten() {
            if e.path().extension().is_some_and(|x| x == "log") {
                s.push_str(&format!(
                    "\n--- {}\n{}",
                    e.path().display(),
                    std::fs::read_to_string(e.path()).unwrap_or_default()
                ));
            }
        }
        s
    };
    assert!(
        submitted.is_some(),
        "sbatch --wait --array=0-2 failed: {}",
        logs()
    );
    let shards: Vec<PathBuf> = (0..3).map(|k| out.join(format!("shard-{k}"))).collect();
    for (k, s) in shards.iter().enumerate() {
        assert!(
            s.join("compare.json").is_file(),
            "task {k} wrote no report: {}",
            logs()
        );
    }
    // Each task's log has its progress lines.
    let task_logs = logs();
    for k in 0..3 {
        assert!(
            task_logs.contains(&format!("shard {k}/3 on ")),
            "{task_logs}"
        );
    }
    let merged = out.join("merged");
    let mut args = vec!["compare".to_string(), "merge".into()];
    args.extend(shards.iter().map(|s| s.display().to_string()));
    args.extend(["--out".into(), merged.display().to_string()]);
    let a: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = run_with(&a, None, Duration::from_secs(60));
    o.expect_code(0, "merge of the array's shards");
    // The same sweep in one process.
    let whole = out.join("whole");
    let a = sweep_command(&whole, &[]);
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    run_with(&a, None, Duration::from_secs(300)).expect_code(0, "the unsharded run");
    let m = report(&merged);
    assert_eq!(
        timeless(&m),
        timeless(&report(&whole)),
        "every cell, the same counts and verdicts"
    );
    let hosts: Vec<&str> = (m["sweep"]["runs"].as_array().unwrap().iter())
        .map(|r| r["machine"]["host"].as_str().unwrap())
        .collect();
    assert_eq!(hosts.len(), 3, "{m:#}");
    drop(cluster);
}
