//! The one family of validated numeric flag parsers every subcommand uses (clap value
//! parsers): whole numbers and reals within stated bounds, seconds, thread counts. A value
//! outside its bounds (0 where it makes no sense, negative, NaN, infinite, huge) is
//! rejected before any work starts, with a message that names the bounds; clap prints it
//! as `error: invalid value 'X' for '--flag <FLAG>': …` and exits with status 2.

/// Longest time any `--seconds`-like flag or time budget accepts: one week. Longer runs
/// are no use on a shared machine, and an interrupted run reports what it has anyway.
pub const MAX_SECONDS: f64 = 7.0 * 24.0 * 3600.0;

/// Most worker threads per available core accepted by `--threads`.
pub const THREADS_PER_CORE: usize = 8;

/// A clap value parser for a whole number in `min..=max` (decimal digits, optional
/// surrounding spaces), converted to `T`.
pub fn whole<T>(min: u64, max: u64) -> impl Fn(&str) -> Result<T, String> + Clone + Send + Sync
where
    T: TryFrom<u64> + Clone + Send + Sync + 'static,
{
    move |text: &str| {
        let trimmed = text.trim();
        if trimmed.starts_with('-') && trimmed[1..].parse::<u64>().is_ok() {
            return Err(format!(
                "{trimmed} is out of range (expected {min}..={max})"
            ));
        }
        let digits = trimmed.strip_prefix('-').unwrap_or(trimmed);
        if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
            // a whole number too large for 64 bits
            if trimmed.parse::<u64>().is_err() {
                return Err(format!(
                    "{trimmed} is out of range (expected {min}..={max})"
                ));
            }
        }
        let v = trimmed
            .parse::<u64>()
            .map_err(|_| format!("`{text}` is not a whole number (expected {min}..={max})"))?;
        if v < min || v > max {
            return Err(format!("{v} is out of range (expected {min}..={max})"));
        }
        T::try_from(v).map_err(|_| format!("{v} is out of range (expected {min}..={max})"))
    }
}

/// A clap value parser for a finite real number in `min..=max`.
pub fn real(min: f64, max: f64) -> impl Fn(&str) -> Result<f64, String> + Clone + Send + Sync {
    move |text: &str| {
        let v: f64 = text
            .trim()
            .parse()
            .map_err(|_| format!("`{text}` is not a number (expected {min}..={max})"))?;
        if !v.is_finite() || v < min || v > max {
            return Err(format!(
                "`{text}` is out of range (expected a finite number in {min}..={max})"
            ));
        }
        Ok(v)
    }
}

/// Parses a number of seconds: finite, more than 0 and at most [`MAX_SECONDS`] (a run
/// shorter than its first batch reports that it has no playouts).
///
/// # Errors
/// A message naming the value and the bounds.
pub fn seconds(text: &str) -> Result<f64, String> {
    let v: f64 = text.trim().parse().map_err(|_| {
        format!(
            "`{text}` is not a number of seconds (expected more than 0 and at most {MAX_SECONDS})"
        )
    })?;
    if !(v > 0.0 && v <= MAX_SECONDS) {
        return Err(format!(
            "`{text}` is out of range: seconds must be more than 0 and at most {MAX_SECONDS}"
        ));
    }
    Ok(v)
}

/// Parses a number of seconds where 0 means "no limit": finite, 0..=[`MAX_SECONDS`].
///
/// # Errors
/// A message naming the value and the bounds.
pub fn seconds_or_zero(text: &str) -> Result<f64, String> {
    real(0.0, MAX_SECONDS)(text)
}

/// The most threads `--threads` accepts: [`THREADS_PER_CORE`] × the available cores
/// (at least 8).
pub fn max_threads() -> usize {
    let cores = propnet_runtime::measure::hardware_threads();
    (cores * THREADS_PER_CORE).max(8)
}

/// Parses `--threads`: 0 (one per core) up to [`max_threads`].
///
/// # Errors
/// A message naming the bound and the core count.
pub fn threads(text: &str) -> Result<usize, String> {
    let max = max_threads();
    let v = text
        .trim()
        .parse::<u64>()
        .map_err(|_| format!("`{text}` is not a thread count (0 = one per core, at most {max})"))?;
    if v > max as u64 {
        let cores = propnet_runtime::measure::hardware_threads();
        return Err(format!(
            "{v} threads is too many: at most {max} ({THREADS_PER_CORE} per core, {cores} cores here; 0 = one per core)"
        ));
    }
    Ok(v as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_zero_negative_nan_and_huge_are_rejected() {
        let w = whole::<u32>(1, 10);
        assert_eq!(w("3"), Ok(3));
        for bad in ["0", "11", "-1", "nan", "1e3", "99999999999999999999999", ""] {
            assert!(w(bad).is_err(), "{bad}");
        }
        for huge in ["99999999999999999999999", "-99999999999999999999999"] {
            assert_eq!(
                w(huge),
                Err(format!("{huge} is out of range (expected 1..=10)")),
                "a whole number too large is out of range, not 'not a whole number'"
            );
        }
        let r = real(0.0, 5.0);
        assert_eq!(r("0"), Ok(0.0));
        for bad in ["nan", "NaN", "inf", "-inf", "-0.5", "5.5", "x"] {
            assert!(r(bad).is_err(), "{bad}");
        }
        assert_eq!(seconds("0.5"), Ok(0.5));
        for bad in ["0", "-1", "nan", "inf", "1e12"] {
            assert!(seconds(bad).is_err(), "{bad}");
        }
        assert_eq!(seconds_or_zero("0"), Ok(0.0));
        assert!(threads("0").is_ok() && threads("8").is_ok());
        let e = threads("100000").unwrap_err();
        assert!(e.contains("too many") && e.contains("per core"), "{e}");
        assert!(threads("-1").is_err());
    }
}
