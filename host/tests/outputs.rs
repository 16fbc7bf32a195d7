//! Issue #42, round two, item 1: no command replaces what its output path names. For
//! every command with an output path, a symlink is written through (the link stays), a
//! FIFO is written in place when something reads it and refused at once ("nothing reads")
//! when nothing does, and a character device (`/dev/null`, and one made with `mknod` when
//! the tests run as root) stays the same device. Output folders (`hdl -o`,
//! `compare --out`, `match --record-dir`) follow a symlink to a folder and refuse a FIFO or
//! a device.

#![cfg(unix)]

mod support;

use std::io::Read;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use support::{run, tictactoe, Outcome};

/// A fresh empty folder for one case.
fn case_dir(name: &str) -> PathBuf {
    let d = support::dir().join(format!("outputs-{name}"));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn ttt() -> String {
    tictactoe().to_str().unwrap().to_string()
}

fn mkfifo(p: &Path) {
    let ok = Command::new("mkfifo").arg(p).status().unwrap().success();
    assert!(ok, "mkfifo {}", p.display());
}

/// A character device (1, 3: the null device) made at `p`; false when not allowed.
fn mknod_null(p: &Path) -> bool {
    Command::new("mknod")
        .arg(p)
        .args(["c", "1", "3"])
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn is_symlink(p: &Path) -> bool {
    std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_symlink())
}

fn is_fifo(p: &Path) -> bool {
    std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_fifo())
}

fn is_char_device(p: &Path) -> bool {
    std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_char_device())
}

/// Reads the FIFO `p` on a thread: it is open for reading when this returns, and the
/// thread reads until `done` is set and no writer is left.
struct FifoReader {
    done: Arc<AtomicBool>,
    thread: std::thread::JoinHandle<Vec<u8>>,
}

impl FifoReader {
    fn open(p: &Path) -> Self {
        let mut f = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(p)
            .unwrap();
        let done = Arc::new(AtomicBool::new(false));
        let stop = done.clone();
        let thread = std::thread::spawn(move || {
            let mut got = Vec::new();
            let mut buf = [0u8; 65536];
            let t = Instant::now();
            loop {
                match f.read(&mut buf) {
                    Ok(0) if stop.load(Ordering::SeqCst) => break,
                    Ok(n) if n > 0 => got.extend_from_slice(&buf[..n]),
                    Ok(_) => std::thread::sleep(Duration::from_millis(5)),
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                        if stop.load(Ordering::SeqCst) && t.elapsed() > Duration::from_secs(120) {
                            break;
                        }
                        std::thread::sleep(Duration::from_millis(5));
                    }
                    Err(e) => panic!("reading the FIFO: {e}"),
                }
            }
            got
        });
        Self { done, thread }
    }

    /// What was read (call once the command has ended).
    fn finish(self) -> Vec<u8> {
        self.done.store(true, Ordering::SeqCst);
        self.thread.join().unwrap()
    }
}

/// A command that writes one file: its arguments with `PATH` for the output, a check of
/// what it wrote, and the previous contents it accepts (a results file must be one).
struct FileCommand {
    name: &'static str,
    args: Vec<String>,
    old: &'static str,
    wrote: fn(&str) -> bool,
}

fn file_commands() -> Vec<FileCommand> {
    let game = ttt();
    let s = |v: &[&str]| v.iter().map(|a| a.replace("GAME", &game)).collect();
    vec![
        FileCommand {
            name: "compile -o",
            args: s(&["compile", "GAME", "-o", "PATH"]),
            old: "old",
            wrote: |t| t.contains("\"gates\""),
        },
        FileCommand {
            name: "match --json-out",
            args: s(&[
                "match",
                "GAME",
                "--players",
                "random,random",
                "--games",
                "1",
                "--json-out",
                "PATH",
            ]),
            old: "old",
            wrote: |t| t.contains("\"games\""),
        },
        FileCommand {
            name: "bench --results",
            args: s(&[
                "bench",
                "GAME",
                "--no-interp",
                "--threads",
                "1",
                "--seconds",
                "0.05",
                "--results",
                "PATH",
            ]),
            old: "{}",
            wrote: |t| t.contains("playouts_per_second"),
        },
    ]
}

fn run_at(c: &FileCommand, path: &Path) -> Outcome {
    let args: Vec<String> = c
        .args
        .iter()
        .map(|a| {
            if a == "PATH" {
                path.to_str().unwrap().to_string()
            } else {
                a.clone()
            }
        })
        .collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    run(&args)
}

/// The names in `d`, sorted.
fn names(d: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn file_outputs_never_replace_links_fifos_or_devices() {
    for c in file_commands() {
        let what = c.name;
        let d = case_dir(&what.replace([' ', '-'], "_"));

        // A symlink: written through, atomically in the target's folder; the link stays.
        std::fs::create_dir(d.join("real")).unwrap();
        let target = d.join("real").join("t");
        std::fs::write(&target, c.old).unwrap();
        let link = d.join("l");
        std::os::unix::fs::symlink("real/t", &link).unwrap();
        run_at(&c, &link).expect_code(0, what);
        assert!(is_symlink(&link), "{what}: the symlink was replaced");
        let text = std::fs::read_to_string(&target).unwrap();
        assert!((c.wrote)(&text), "{what}: target not written: {text}");
        assert_eq!(
            names(&d.join("real")),
            ["t"],
            "{what}: no temporary file left"
        );

        // A FIFO that nothing reads: refused at once, and still a FIFO.
        let fifo = d.join("f");
        mkfifo(&fifo);
        let t = Instant::now();
        let o = run_at(&c, &fifo);
        o.expect_code(1, what);
        assert!(
            o.err.contains(&format!(
                "cannot write {}: it is a FIFO that nothing reads",
                fifo.display()
            )),
            "{what}: {}",
            o.err
        );
        assert!(t.elapsed() < Duration::from_secs(50), "{what}: slow");
        assert!(is_fifo(&fifo), "{what}: the FIFO was replaced");

        // A FIFO with a reader: written in place.
        let reader = FifoReader::open(&fifo);
        run_at(&c, &fifo).expect_code(0, what);
        let got = String::from_utf8(reader.finish()).unwrap();
        assert!((c.wrote)(&got), "{what}: the reader got {got:?}");
        assert!(is_fifo(&fifo), "{what}: the FIFO was replaced");

        // A symlink to a FIFO that nothing reads: refused, both stay.
        let to_fifo = d.join("lf");
        std::os::unix::fs::symlink("f", &to_fifo).unwrap();
        run_at(&c, &to_fifo).expect_code(1, what);
        assert!(is_symlink(&to_fifo) && is_fifo(&fifo), "{what}");

        // Character devices: written in place, still devices.
        run_at(&c, Path::new("/dev/null")).expect_code(0, what);
        assert!(is_char_device(Path::new("/dev/null")), "{what}: /dev/null");
        let dev = d.join("n");
        if mknod_null(&dev) {
            run_at(&c, &dev).expect_code(0, what);
            assert!(is_char_device(&dev), "{what}: the device was replaced");
        }
        assert_eq!(
            names(&d),
            if is_char_device(&dev) {
                vec!["f", "l", "lf", "n", "real"]
            } else {
                vec!["f", "l", "lf", "real"]
            },
            "{what}: nothing else was created"
        );
        let _ = std::fs::remove_dir_all(&d);
    }
}

#[test]
fn output_folders_follow_links_and_refuse_fifos_and_devices() {
    let game = ttt();
    let folder_commands: Vec<(&str, Vec<&str>)> = vec![
        ("hdl -o", vec!["hdl", &game, "-o", "DIR"]),
        (
            "compare --out",
            vec![
                "compare",
                &game,
                "--reasoners",
                "cpu:1",
                "--seconds",
                "0.05",
                "--rounds",
                "1",
                "--out",
                "DIR",
            ],
        ),
        (
            "match --record-dir",
            vec![
                "match",
                &game,
                "--players",
                "random,random",
                "--games",
                "1",
                "--record-dir",
                "DIR",
            ],
        ),
    ];
    for (what, args) in folder_commands {
        let d = case_dir(&what.replace([' ', '-'], "_"));
        let at = |p: &Path| -> Outcome {
            let p = p.to_str().unwrap().to_string();
            let args: Vec<&str> = args
                .iter()
                .map(|a| if *a == "DIR" { p.as_str() } else { a })
                .collect();
            run(&args)
        };
        // A symlink to a folder: the files go into the folder, the link stays.
        std::fs::create_dir(d.join("real")).unwrap();
        let link = d.join("l");
        std::os::unix::fs::symlink("real", &link).unwrap();
        at(&link).expect_code(0, what);
        assert!(is_symlink(&link), "{what}: the symlink was replaced");
        assert!(
            !names(&d.join("real")).is_empty(),
            "{what}: nothing written"
        );
        // A FIFO, a symlink to it, a device: refused, left as they were.
        let fifo = d.join("f");
        mkfifo(&fifo);
        let to_fifo = d.join("lf");
        std::os::unix::fs::symlink("f", &to_fifo).unwrap();
        for p in [fifo.as_path(), to_fifo.as_path(), Path::new("/dev/null")] {
            let o = at(p);
            o.expect_code(1, what);
            assert!(
                o.err.contains("not a folder") || o.err.contains("not a directory"),
                "{what} {}: {}",
                p.display(),
                o.err
            );
        }
        assert!(is_fifo(&fifo) && is_symlink(&to_fifo), "{what}");
        assert!(is_char_device(Path::new("/dev/null")), "{what}");
        let _ = std::fs::remove_dir_all(&d);
    }
}
