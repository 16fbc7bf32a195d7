//! The match record in ggp-base's JSON format (`Match.toJSON`): `matchId`, `randomToken`,
//! `startTime`, `gameMetaURL`, `isCompleted`, `isAborted`, `states`, `moves`,
//! `stateTimes`, `errors`, `goalValues`, `previewClock`, `startClock`, `playClock`,
//! `playerNamesFromHost`, `scrambled`; plus `gameMetaData` (name, rulesheet, roles, as
//! Tiltyard's game metadata) and two fields of ours that other tools ignore:
//! `replyMillis` (per step and role, the reply latency of a remote player) and `end`.

use serde::Serialize;

/// Game metadata embedded in the record (no repository URL exists for a local game).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GameMetaData {
    /// The game's name (file stem).
    pub game_name: String,
    /// The rules as sent to the players (KIF).
    pub rulesheet: String,
    /// Role names as spelled in the rules.
    pub role_names: Vec<String>,
    /// Number of roles.
    pub num_roles: usize,
}

/// One match, as ggp-base writes it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MatchRecord {
    /// Match id sent in every message.
    pub match_id: String,
    /// Random token (here derived from the seed).
    pub random_token: String,
    /// Start time, milliseconds since the Unix epoch.
    pub start_time: u64,
    /// ggp-base's game repository URL; empty for a local file.
    #[serde(rename = "gameMetaURL")]
    pub game_meta_url: String,
    /// The game.
    pub game_meta_data: GameMetaData,
    /// The match reached a terminal state.
    pub is_completed: bool,
    /// The match was aborted (move limit, a role without legal moves).
    pub is_aborted: bool,
    /// Every state, `( f1 f2 … )` with fluents spelled as in the rules.
    pub states: Vec<String>,
    /// Every joint move, one text per role.
    pub moves: Vec<Vec<String>>,
    /// When each state was reached, ms since the epoch.
    pub state_times: Vec<u64>,
    /// Per step (START first, then each joint move), per role: `""`, `TO` (late),
    /// `CE` (connection error), `IL <reply>` (illegal or unreadable move), or `NR <reply>`
    /// at START for a reply other than `ready` and then `NR` at every step (the player is
    /// not in the match: the manager chose its moves).
    pub errors: Vec<Vec<String>>,
    /// Final goals per role (completed matches; the goals of the state reached otherwise).
    pub goal_values: Vec<u8>,
    /// No preview was sent: -1.
    pub preview_clock: i64,
    /// Start clock, seconds.
    pub start_clock: u64,
    /// Play clock, seconds.
    pub play_clock: u64,
    /// Player of each role: its URL or in-process spec.
    pub player_names_from_host: Vec<String>,
    /// Never scrambled.
    pub scrambled: bool,
    /// Ours: reply latency in ms per step (START first) and role; `null` for in-process
    /// players and for replies that never came.
    pub reply_millis: Vec<Vec<Option<f64>>>,
    /// Ours: `terminal`, `no legal move` or `move limit`.
    pub end: String,
    /// GDL-II matches (not in ggp-base's format): per joint move, per role, the percepts
    /// the role received after it, spelled as in the rules. Absent for GDL-I matches.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub percepts: Vec<Vec<Vec<String>>>,
}

/// Milliseconds since the Unix epoch now.
pub fn now_millis() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}
