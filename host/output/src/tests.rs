use super::{append, check, folder as out_folder, write, Output, OutputError};
use std::io::Read;
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// A fresh empty folder for one test.
fn folder(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("propnet-output-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
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

fn mkfifo(p: &Path) {
    let ok = Command::new("mkfifo").arg(p).status().unwrap().success();
    assert!(ok, "mkfifo {}", p.display());
}

fn is_symlink(p: &Path) -> bool {
    std::fs::symlink_metadata(p)
        .map(|m| m.file_type().is_symlink())
        .unwrap_or(false)
}

#[test]
fn regular_file_is_replaced_atomically_and_keeps_its_mode() {
    let d = folder("regular");
    let p = d.join("out.txt");
    std::fs::write(&p, "old").unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o640)).unwrap();
    let mut out = Output::create(&p).unwrap();
    assert!(!out.in_place());
    out.write_all(b"new").unwrap();
    // Not visible before the commit.
    assert_eq!(std::fs::read_to_string(&p).unwrap(), "old");
    out.commit().unwrap();
    assert_eq!(std::fs::read_to_string(&p).unwrap(), "new");
    let mode = std::fs::metadata(&p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o640);
    assert_eq!(names(&d), ["out.txt"]);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn missing_file_is_created_and_dropping_an_output_keeps_the_old_file() {
    let d = folder("missing");
    let p = d.join("new.txt");
    write(&p, "hello").unwrap();
    assert_eq!(std::fs::read_to_string(&p).unwrap(), "hello");
    let mut out = Output::create(&p).unwrap();
    out.write_all(b"half").unwrap();
    drop(out);
    assert_eq!(std::fs::read_to_string(&p).unwrap(), "hello");
    assert_eq!(names(&d), ["new.txt"], "no temporary file is left");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_symlink_is_written_through_and_stays_a_link() {
    let d = folder("symlink");
    let sub = d.join("sub");
    std::fs::create_dir(&sub).unwrap();
    let target = sub.join("t");
    std::fs::write(&target, "old").unwrap();
    // A chain: l2 -> l1 -> sub/t, and a link through a linked folder.
    std::os::unix::fs::symlink("sub/t", d.join("l1")).unwrap();
    std::os::unix::fs::symlink(d.join("l1"), d.join("l2")).unwrap();
    std::os::unix::fs::symlink("sub", d.join("subl")).unwrap();
    write(&d.join("l2"), "via chain").unwrap();
    assert!(is_symlink(&d.join("l1")) && is_symlink(&d.join("l2")));
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "via chain");
    write(&d.join("subl").join("t"), "via folder").unwrap();
    assert!(is_symlink(&d.join("subl")));
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "via folder");
    assert_eq!(
        names(&sub),
        ["t"],
        "the temporary file went to the target's folder"
    );
    // A dangling link: its target is created.
    std::os::unix::fs::symlink("sub/fresh", d.join("dangling")).unwrap();
    write(&d.join("dangling"), "fresh").unwrap();
    assert!(is_symlink(&d.join("dangling")));
    assert_eq!(std::fs::read_to_string(sub.join("fresh")).unwrap(), "fresh");
    // Appending goes through the link too.
    use std::io::Write;
    writeln!(append(&d.join("l2")).unwrap(), "!").unwrap();
    assert!(is_symlink(&d.join("l2")));
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "via folder!\n");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_symlink_loop_is_refused() {
    let d = folder("loop");
    std::os::unix::fs::symlink("b", d.join("a")).unwrap();
    std::os::unix::fs::symlink("a", d.join("b")).unwrap();
    let e = write(&d.join("a"), "x").unwrap_err();
    assert!(matches!(e, OutputError::LinkLoop { .. }), "{e}");
    assert!(e.to_string().contains("symbolic links"), "{e}");
    assert!(is_symlink(&d.join("a")) && is_symlink(&d.join("b")));
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn dev_null_is_written_in_place() {
    let p = Path::new("/dev/null");
    let out = Output::create(p).unwrap();
    assert!(out.in_place());
    out.finish("bytes").unwrap();
    let mut f = append(p).unwrap();
    std::io::Write::write_all(&mut f, b"more").unwrap();
    assert!(std::fs::metadata(p).unwrap().file_type().is_char_device());
}

#[test]
fn a_character_device_in_a_folder_is_written_in_place() {
    let d = folder("chardev");
    let n = d.join("null");
    // Making a device needs root; without it the test has nothing to check.
    let made = Command::new("mknod")
        .arg(&n)
        .args(["c", "1", "3"])
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if made {
        write(&n, "x").unwrap();
        assert!(std::fs::metadata(&n).unwrap().file_type().is_char_device());
        assert_eq!(names(&d), ["null"]);
    }
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_fifo_without_reader_is_refused_at_once() {
    let d = folder("fifo-alone");
    let f = d.join("f");
    mkfifo(&f);
    let t = Instant::now();
    let e = write(&f, "x").unwrap_err();
    assert!(matches!(e, OutputError::NoReader { .. }), "{e}");
    assert!(e.to_string().contains("nothing reads"), "{e}");
    assert!(matches!(append(&f), Err(OutputError::NoReader { .. })));
    assert!(t.elapsed() < Duration::from_secs(5));
    assert!(std::fs::metadata(&f).unwrap().file_type().is_fifo());
    assert_eq!(names(&d), ["f"]);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_fifo_with_a_reader_gets_the_bytes_in_place() {
    let d = folder("fifo-read");
    let f = d.join("f");
    mkfifo(&f);
    let reader = {
        let f = f.clone();
        std::thread::spawn(move || {
            let mut s = String::new();
            std::fs::File::open(&f)
                .unwrap()
                .read_to_string(&mut s)
                .unwrap();
            s
        })
    };
    // The reader's open blocks until a writer comes; wait for it to be there.
    let t = Instant::now();
    let out = loop {
        match Output::create(&f) {
            Ok(o) => break o,
            Err(OutputError::NoReader { .. }) if t.elapsed() < Duration::from_secs(10) => {
                std::thread::sleep(Duration::from_millis(10));
            }
            Err(e) => panic!("{e}"),
        }
    };
    assert!(out.in_place());
    out.finish("through the pipe").unwrap();
    assert_eq!(reader.join().unwrap(), "through the pipe");
    assert!(std::fs::metadata(&f).unwrap().file_type().is_fifo());
    assert_eq!(names(&d), ["f"]);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn folders_sockets_and_missing_folders_are_refused_with_advice() {
    let d = folder("refused");
    let e = write(&d, "x").unwrap_err();
    assert!(matches!(e, OutputError::Folder { .. }), "{e}");
    assert!(e.to_string().contains("it is a folder"), "{e}");
    let s = d.join("sock");
    let _listener = std::os::unix::net::UnixListener::bind(&s).unwrap();
    let e = write(&s, "x").unwrap_err();
    assert!(e.to_string().contains("it is a socket"), "{e}");
    assert!(std::fs::metadata(&s).unwrap().file_type().is_socket());
    let e = write(&d.join("no/such/file"), "x").unwrap_err();
    assert!(matches!(e, OutputError::MissingFolder { .. }), "{e}");
    assert!(
        e.to_string().contains("does not exist; create it first"),
        "{e}"
    );
    assert_eq!(names(&d), ["sock"]);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn dev_stdout_is_an_open_descriptor_written_in_place() {
    let p = Path::new("/dev/stdout");
    if !is_symlink(p) {
        return;
    }
    match Output::create(p) {
        Ok(out) => {
            assert!(out.in_place());
            out.commit().unwrap();
        }
        // A test harness without a reader on standard output.
        Err(OutputError::NoReader { .. }) => {}
        Err(e) => panic!("{e}"),
    }
    assert!(is_symlink(p));
}

#[test]
fn check_opens_nothing_and_refuses_what_write_refuses() {
    let d = folder("check");
    let f = d.join("f");
    mkfifo(&f);
    // A FIFO passes the check without a reader (and without being opened).
    check(&f).unwrap();
    check(Path::new("/dev/null")).unwrap();
    check(&d.join("new.json")).unwrap();
    std::os::unix::fs::symlink("new.json", d.join("l")).unwrap();
    check(&d.join("l")).unwrap();
    assert!(matches!(check(&d), Err(OutputError::Folder { .. })));
    assert!(matches!(
        check(&d.join("no/x.json")),
        Err(OutputError::MissingFolder { .. })
    ));
    assert_eq!(names(&d), ["f", "l"]);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn output_folders_are_made_or_refused() {
    let d = folder("folders");
    out_folder(&d.join("a/b")).unwrap();
    assert!(d.join("a/b").is_dir());
    std::os::unix::fs::symlink("a", d.join("la")).unwrap();
    out_folder(&d.join("la")).unwrap();
    assert!(is_symlink(&d.join("la")));
    let f = d.join("f");
    mkfifo(&f);
    std::fs::write(d.join("file"), "x").unwrap();
    std::os::unix::fs::symlink("nowhere", d.join("dangling")).unwrap();
    for (name, kind) in [
        ("f", "FIFO"),
        ("file", "file"),
        ("dangling", "symlink to nothing"),
    ] {
        let e = out_folder(&d.join(name)).unwrap_err();
        assert!(matches!(e, OutputError::NotAFolder { .. }), "{e}");
        assert!(
            e.to_string()
                .contains(&format!("it is a {kind}, not a folder")),
            "{e}"
        );
    }
    let e = out_folder(Path::new("/dev/null")).unwrap_err();
    assert!(e.to_string().contains("character device"), "{e}");
    assert_eq!(names(&d), ["a", "dangling", "f", "file", "la"]);
    let _ = std::fs::remove_dir_all(&d);
}
