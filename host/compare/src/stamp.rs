//! The machine stamp written with every measurement: host name, CPU model, cores, OS, GPU
//! adapter, propnet version and commit. Every field fails soft to `unknown` (or `None`).

/// Where a measurement was taken.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct HostStamp {
    /// Host name (`/proc/sys/kernel/hostname`), or `unknown`: which node of a cluster
    /// ran a shard. Absent in reports written before it was recorded.
    #[serde(default = "unknown")]
    pub host: String,
    /// CPU model name (`/proc/cpuinfo`), or `unknown`.
    pub cpu: String,
    /// Hardware threads available to this process.
    pub cores: usize,
    /// Operating system name and kernel release.
    pub os: String,
    /// The GPU adapter wgpu picks (name, API, driver), when there is one.
    pub gpu: Option<String>,
    /// propnet version (the crate's).
    pub propnet_version: String,
    /// Git commit the binary was built from, or `unknown`.
    pub git_commit: String,
}

fn unknown() -> String {
    "unknown".into()
}

fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(unknown)
}

fn cpu_model() -> String {
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    info.lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            (k.trim() == "model name").then(|| v.trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into())
}

fn os_name() -> String {
    let release = std::fs::read_to_string("/etc/os-release").unwrap_or_default();
    let pretty = release.lines().find_map(|l| {
        l.strip_prefix("PRETTY_NAME=")
            .map(|v| v.trim_matches('"').to_string())
    });
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .ok()
        .map(|s| s.trim().to_string());
    match (pretty, kernel) {
        (Some(p), Some(k)) => format!("{p}, Linux {k}"),
        (Some(p), None) => p,
        (None, Some(k)) => format!("Linux {k}"),
        (None, None) => std::env::consts::OS.to_string(),
    }
}

impl HostStamp {
    /// Reads the stamp of this machine; `gpu` is the GPU adapter's description, when the
    /// caller looked for one (this crate does not link a GPU API).
    pub fn detect(gpu: Option<String>) -> HostStamp {
        HostStamp {
            host: host_name(),
            cpu: cpu_model(),
            cores: propnet_runtime::measure::hardware_threads(),
            os: os_name(),
            gpu,
            propnet_version: env!("CARGO_PKG_VERSION").to_string(),
            git_commit: option_env!("PROPNET_GIT_COMMIT")
                .unwrap_or("unknown")
                .to_string(),
        }
    }

    /// One line: `HOST: CPU, N threads, OS, GPU …, propnet V (commit C)`.
    pub fn summary(&self) -> String {
        format!(
            "{}: {}, {} hardware threads, {}, GPU: {}, propnet {} (commit {})",
            self.host,
            self.cpu,
            self.cores,
            self.os,
            self.gpu.as_deref().unwrap_or("none"),
            self.propnet_version,
            self.git_commit.get(..12).unwrap_or(&self.git_commit)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamp_has_the_basics() {
        let m = HostStamp::detect(None);
        assert!(m.cores >= 1);
        assert!(!m.cpu.is_empty() && !m.os.is_empty());
        assert_eq!(m.propnet_version, env!("CARGO_PKG_VERSION"));
        assert!(m.summary().contains("hardware threads"));
    }
}
