//! GDL-II games through the CLI (#41): `compile` writes percept outputs, `trace --engine
//! netlist` gives the interpreter's lines (percepts included), and the commands that search
//! with perfect information refuse the game with a message instead of peeking.

use std::path::PathBuf;
use std::process::{Command, Output};

/// A card dealt by `random`, seen only by alice; bob sees that a card was dealt.
const GAME: &str = "
(role random) (role alice) (role bob)
(card c1) (card c2) (card c3)
(init (phase deal))
(<= (legal random (deal ?c)) (true (phase deal)) (card ?c))
(<= (legal random noop) (true (phase guess)))
(<= (legal ?p noop) (role ?p) (distinct ?p random) (true (phase deal)))
(<= (legal alice noop) (true (phase guess)))
(<= (legal bob (guess ?c)) (true (phase guess)) (card ?c))
(<= (next (holds ?c)) (does random (deal ?c)))
(<= (next (holds ?c)) (true (holds ?c)))
(<= (next (guessed ?c)) (does bob (guess ?c)))
(<= (next (phase guess)) (true (phase deal)))
(<= (next (phase done)) (true (phase guess)))
(<= (sees alice (card ?c)) (does random (deal ?c)))
(<= (sees bob dealt) (does random (deal ?c)))
(<= (sees ?r (guess ?c)) (role ?r) (does bob (guess ?c)))
(<= terminal (true (phase done)))
(<= (goal bob 100) (true (guessed ?c)) (true (holds ?c)))
(<= (goal bob 0) (not (right)))
(<= right (true (guessed ?c)) (true (holds ?c)))
(<= (goal alice 100) (not (right)))
(<= (goal alice 0) (right))
(goal random 0)
";

/// Whether a GPU adapter (a real GPU or lavapipe) exists; without one the GPU checks
/// skip with a message, unless `PROPNET_REQUIRE_GPU` is set (CI).
fn gpu_present() -> bool {
    match propnet_kernels::runner::request_adapter() {
        Ok(_) => true,
        Err(e) => {
            assert!(
                std::env::var_os("PROPNET_REQUIRE_GPU").is_none(),
                "no GPU adapter: {e}"
            );
            eprintln!("skipping the GPU trace: no adapter ({e})");
            false
        }
    }
}

fn game_file(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("propnet-cli-gdl2-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, GAME).unwrap();
    path
}

fn propnet(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_propnet"))
        .args(args)
        .output()
        .unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Runs `propnet match GAME --players PLAYERS --games N --json-out … EXTRA…`, asserts it
/// succeeded and played `n` games; its stdout and the games of the JSON.
fn match_json(
    game: &std::path::Path,
    players: &str,
    n: usize,
    extra: &[&str],
) -> (String, Vec<serde_json::Value>) {
    let json = game.with_extension("json");
    let games = n.to_string();
    let mut args = vec![
        "match",
        game.to_str().unwrap(),
        "--players",
        players,
        "--games",
        &games,
        "--json-out",
        json.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let out = propnet(&args);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let games = v["games"].as_array().unwrap().clone();
    assert_eq!(games.len(), n);
    (text(&out.stdout), games)
}

#[test]
fn compile_writes_percepts_and_the_netlist_traces_them_like_the_interpreter() {
    let g = game_file("deal.kif");
    let g = g.to_str().unwrap();
    let json = g.replace(".kif", ".json");
    let out = propnet(&["compile", g, "-o", &json, "--emit", "json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let net: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(net["gdl2"], true);
    let percepts = |r: usize| -> Vec<String> {
        (net["roles"][r]["percepts"].as_array())
            .map(|ps| {
                ps.iter()
                    .map(|p| p["name"].as_str().unwrap().to_string())
                    .collect()
            })
            .unwrap_or_default()
    };
    assert_eq!(
        percepts(1),
        [
            "(card c1)",
            "(card c2)",
            "(card c3)",
            "(guess c1)",
            "(guess c2)",
            "(guess c3)"
        ]
    );
    assert_eq!(
        percepts(2),
        ["(guess c1)", "(guess c2)", "(guess c3)", "dealt"]
    );
    let trace = |extra: &[&str]| {
        let mut args = vec!["trace", g, "--playouts", "6", "--seed", "5"];
        args.extend_from_slice(extra);
        let out = propnet(&args);
        assert!(out.status.success(), "{}", text(&out.stderr));
        text(&out.stdout)
            .lines()
            .skip(1)
            .map(String::from)
            .collect::<Vec<_>>()
    };
    let interp = trace(&[]);
    assert_eq!(interp.len(), 6 * 3, "{interp:#?}");
    assert!(
        interp[0].contains("\"sees\":{\"alice\":[\"(card c"),
        "{}",
        interp[0]
    );
    for backend in ["reference", "cpu"] {
        assert_eq!(
            trace(&["--engine", "netlist", "--backend", backend]),
            interp,
            "{backend}"
        );
    }
    // the compiled JSON is a game too
    assert_eq!(trace(&["--engine", "netlist"]).len(), interp.len());
    if gpu_present() {
        let out = propnet(&[
            "trace",
            g,
            "--playouts",
            "6",
            "--seed",
            "5",
            "--engine",
            "netlist",
            "--backend",
            "gpu",
        ]);
        let err = text(&out.stderr);
        assert!(out.status.success(), "{err}");
        let lines: Vec<String> = text(&out.stdout)
            .lines()
            .skip(1)
            .map(String::from)
            .collect();
        assert_eq!(lines, interp, "gpu");
        // Every traced state (18) on the playout kernel; every transition (18 states
        // less the 6 initial ones) and its percepts on the step kernel.
        assert!(
            err.contains(
                "checked on the GPU, equal to the CPU program: 18 states on the playout \
                 kernel, 12 transitions and their percepts on the step kernel"
            ) && err.matches("gpu: ").count() == 1,
            "{err}"
        );
        // a trace that diverges at its third line (playout 0, step 1): the GPU has checked
        // the two states entered up to there, and says so
        let full = text(&propnet(&["trace", g, "--playouts", "1", "--seed", "5"]).stdout);
        let mut lines: Vec<String> = full.lines().map(String::from).collect();
        lines[2] = lines[2].replacen("\"terminal\":false", "\"terminal\":true", 1);
        let bad = g.replace(".kif", "-diverging.jsonl");
        std::fs::write(&bad, lines.join("\n") + "\n").unwrap();
        let out = propnet(&["verify", g, &bad, "--backend", "gpu"]);
        let (err, stdout) = (text(&out.stderr), text(&out.stdout));
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(stdout.contains("diverges at line 3"), "{stdout}{err}");
        assert!(
            err.contains("checked on the GPU, equal to the CPU program: 2 states"),
            "{err}"
        );
    }
    // `--backend` alone means the netlist engine; with an explicit interpreter it is refused
    assert_eq!(trace(&["--backend", "cpu"]), interp);
    let out = propnet(&["trace", g, "--engine", "interp", "--backend", "gpu"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr)
            .contains("--backend gpu evaluates a compiled netlist: drop --engine interp"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn searching_commands_refuse_a_gdl2_game() {
    let g = game_file("deal2.kif");
    let g = g.to_str().unwrap();
    for args in [vec!["best", g, "--iterations", "10"], vec!["solve", g]] {
        let out = propnet(&args);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(
            err.contains(&format!("{g}: a GDL-II game"))
                && err.contains(&format!("`propnet {}`", args[0])),
            "{args:?}: {err}"
        );
    }
    let out = propnet(&["run", g, "--playouts", "640"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
}

/// `match` on a GDL-II game: the referee plays `random`, one player per other role; the
/// perfect-information `mcts` player, openings and GGP (http) players are refused.
#[test]
fn match_referees_a_gdl2_game_with_hidden_information() {
    let g = game_file("deal3.kif");
    let g = g.to_str().unwrap();
    let out = propnet(&[
        "match",
        g,
        "--players",
        "belief:cpu:64:4x4:p32,random",
        "--games",
        "4",
        "--threads",
        "1",
    ]);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "{stderr}");
    assert!(
        stdout.starts_with("4 games of") && stdout.contains("GDL-II"),
        "{stdout}"
    );
    assert!(
        stdout.contains("belief:cpu:64:4x4:p32:") && stdout.contains("random:"),
        "{stdout}"
    );
    let refused = |players: &str, extra: &[&str], needle: &str| {
        let mut args = vec!["match", g, "--players", players, "--games", "1"];
        args.extend_from_slice(extra);
        let out = propnet(&args);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{players}: {err}");
        assert!(err.contains(needle), "{players}: {err}");
    };
    let out = propnet(&[
        "match",
        g,
        "--players",
        "pimc:cpu:64:p16,random",
        "--games",
        "2",
        "--threads",
        "1",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("pimc:cpu:64:p16:"),
        "{}",
        text(&out.stdout)
    );
    refused("mcts:cpu:1s,random", &[], "use `belief:cpu:1s`");
    refused(
        "pimc:cpu:1s:c2,random",
        &[],
        "unknown option `c2`: expected pN",
    );
    refused("random,random,random", &[], "2 roles besides `random`");
    refused(
        "random,random",
        &["--opening", "2"],
        "--opening: not for a GDL-II game",
    );
    refused("belief:cpu:1s:zz,random", &[], "unknown option `zz`");
    // as a GGP manager (http:// players, clocks, --protocol): the GDL-II protocol only
    refused(
        "http://127.0.0.1:9,random",
        &["--protocol", "gdl1"],
        "a GDL-II game, but --protocol gdl1 would send every player every move",
    );
    refused("http://127.0.0.1:9,mcts:cpu:1s", &[], "use `belief:cpu:1s`");
    refused(
        "http://127.0.0.1:9",
        &["--protocol", "gdl2"],
        "2 roles besides `random` (which the manager plays), but 1 player given",
    );
}

/// `verify` checks the percepts of every joint move of a GDL-II trace and says so; a
/// GDL-II trace without them, or with them where no joint move is, is malformed.
#[test]
fn verify_checks_the_percepts_of_a_gdl2_trace() {
    let g = game_file("deal4.kif");
    let g = g.to_str().unwrap();
    let out = propnet(&["trace", g, "--playouts", "3", "--seed", "2"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let good = text(&out.stdout);
    let dir = std::path::Path::new(g).parent().unwrap().to_path_buf();
    let verify = |name: &str, trace: &str| {
        let path = dir.join(name);
        std::fs::write(&path, trace).unwrap();
        let out = propnet(&["verify", g, path.to_str().unwrap(), "--engine", "netlist"]);
        (out.status.code(), text(&out.stdout) + &text(&out.stderr))
    };
    let (code, msg) = verify("good.jsonl", &good);
    assert_eq!(code, Some(0), "{msg}");
    assert!(msg.contains("joint moves (percepts of every one)"), "{msg}");
    let first_sees = good.find(",\"sees\":").unwrap();
    let end = first_sees + good[first_sees..].find("}}").unwrap() + 1;
    let (code, msg) = verify(
        "nosees.jsonl",
        &format!("{}{}", &good[..first_sees], &good[end..]),
    );
    assert_eq!(code, Some(1), "{msg}");
    assert!(
        msg.contains(":2:1: a GDL-II trace line with a joint move has no `sees`"),
        "{msg}"
    );
    let changed = good.replacen("\"dealt\"", "\"(card c9)\"", 1);
    let (code, msg) = verify("changed.jsonl", &changed);
    assert_eq!(code, Some(1), "{msg}");
    assert!(msg.contains("percepts of bob"), "{msg}");
    let last = good.lines().nth(3).unwrap();
    assert!(!last.contains("joint"), "{last}");
    let extra = good.replacen(
        last,
        &last.replace("}}", "},\"sees\":{\"alice\":[],\"bob\":[]}}"),
        1,
    );
    let (code, msg) = verify("extra.jsonl", &extra);
    assert_eq!(code, Some(1), "{msg}");
    assert!(
        msg.contains("`sees` on a line without a joint move"),
        "{msg}"
    );
    // traced as a GDL-I game (no `gdl` header field, no `sees`): agrees, and says that no
    // percept was checked
    let gdl1: Vec<String> = good
        .lines()
        .map(|l| match l.find(",\"sees\":") {
            Some(i) => format!("{}}}", &l[..i]),
            None => l.replace(",\"gdl\":\"II\"", ""),
        })
        .collect();
    let (code, msg) = verify("gdl1.jsonl", &(gdl1.join("\n") + "\n"));
    assert_eq!(code, Some(0), "{msg}");
    assert!(
        msg.contains("note: a GDL-II game, but the trace reports no percepts (`sees`)"),
        "{msg}"
    );
    // `--json` gives a verdict object even when the trace cannot be read
    let out = propnet(&["verify", g, "/nonexistent/trace.jsonl", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_str(text(&out.stdout).trim()).unwrap();
    assert_eq!(v["agrees"], false);
    assert!(
        v["error"]
            .as_str()
            .unwrap()
            .contains("/nonexistent/trace.jsonl"),
        "{v}"
    );
}

/// A `random` role without percepts (GDL-I): `match` seats no player there either; the
/// referee draws its moves, and `--json-out` shows its seat as null.
#[test]
fn the_referee_plays_random_in_a_gdl1_match_too() {
    let game = "(role random) (role p)\n(init (s 0))\n\
                (<= (legal random (roll ?d)) (true (s 0)) (die ?d))\n(die 1) (die 2)\n\
                (<= (legal random wait) (true (s 1)))\n\
                (<= (legal p (bet ?d)) (true (s 0)) (die ?d))\n(<= (legal p wait) (true (s 1)))\n\
                (<= (next (s 1)) (true (s 0)))\n(<= (next (s 2)) (true (s 1)))\n\
                (<= (next (hit)) (does random (roll ?d)) (does p (bet ?d)))\n\
                (<= (next (hit)) (true (hit)))\n(<= terminal (true (s 2)))\n\
                (<= (goal p 100) (true (hit)))\n(<= (goal p 0) (not (true (hit))))\n(goal random 0)\n";
    let dir = std::env::temp_dir().join(format!("propnet-cli-gdl2-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let g = dir.join("dice.kif");
    std::fs::write(&g, game).unwrap();
    let (_, games) = match_json(&g, "random", 40, &[]);
    assert!(games
        .iter()
        .all(|g| g["seats"] == serde_json::json!([null, 0])));
    let rolls = |d: &str| games.iter().filter(|g| g["moves"][0][0] == d).count();
    assert!(
        rolls("(roll 1)") > 5 && rolls("(roll 2)") > 5,
        "the referee draws both rolls"
    );
}

/// A GDL-II match is played in duplicate format: games 2k and 2k+1 get the same deal from
/// the referee with the seats swapped, and the deals vary across pairs.
#[test]
fn the_games_of_a_seat_rotation_share_the_deal() {
    // in process, and as a GDL-II game manager (the GGP path's seats)
    for extra in [&[][..], &["--protocol", "gdl2"]] {
        let (stdout, games) = match_json(&game_file("deal5.kif"), "random,random", 16, extra);
        assert_duplicate(&stdout, &games);
    }
}

/// Games 2k and 2k+1 share the deal with the seats swapped, the deals vary, and the
/// paired scores are printed.
fn assert_duplicate(stdout: &str, games: &[serde_json::Value]) {
    let mut deals = std::collections::BTreeSet::new();
    for pair in games.chunks(2) {
        assert_eq!(pair[0]["moves"][0][0], pair[1]["moves"][0][0], "{pair:?}");
        assert_eq!(pair[0]["seats"], serde_json::json!([null, 0, 1]));
        assert_eq!(pair[1]["seats"], serde_json::json!([null, 1, 0]));
        deals.insert(pair[0]["moves"][0][0].to_string());
    }
    assert!(deals.len() >= 2, "one deal in 8 pairs: {deals:?}");
    assert!(
        stdout.contains("paired by deal (8 deals, each player in every seat):"),
        "{stdout}"
    );
}

/// `propnet hdl` on a GDL-II game writes the percept module beside the engine and, with
/// `--check`, simulates it in iverilog on the transitions of the checked playouts.
#[test]
fn hdl_writes_and_checks_the_percept_module() {
    if !propnet_hdl::tools::available_for_tests("iverilog") {
        return;
    }
    let g = game_file("hdl-deal.kif");
    let out_dir = g.parent().unwrap().join("hdl-out");
    let out = propnet(&[
        "hdl",
        g.to_str().unwrap(),
        "-o",
        out_dir.to_str().unwrap(),
        "--check",
        "6",
    ]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}{}", stdout, text(&out.stderr));
    assert!(
        stdout.contains("simulation (iverilog): 6 playouts equal to the reference"),
        "{stdout}"
    );
    let line = (stdout.lines())
        .find(|l| l.starts_with("percept simulation (iverilog): "))
        .unwrap_or_else(|| panic!("no percept check: {stdout}"));
    let n: usize = line["percept simulation (iverilog): ".len()..]
        .split_whitespace()
        .next()
        .and_then(|x| x.parse().ok())
        .unwrap_or(0);
    assert!(n >= 6, "{line}");
    let written = std::fs::read_dir(&out_dir).unwrap().any(|e| {
        e.unwrap()
            .file_name()
            .to_string_lossy()
            .ends_with("_percept.v")
    });
    assert!(written, "no <prefix>_percept.v in {}", out_dir.display());
    // a simulator without a check to run would be ignored: refused instead, `auto` too
    for sim in ["verilator", "auto"] {
        let out = propnet(&[
            "hdl",
            g.to_str().unwrap(),
            "-o",
            out_dir.to_str().unwrap(),
            "--simulator",
            sim,
        ]);
        assert_eq!(out.status.code(), Some(1), "{sim}");
        assert!(
            text(&out.stderr).contains("add --check N"),
            "{}",
            text(&out.stderr)
        );
    }
}
