//! The comparison's plots, drawn with plotters as SVG and PNG from the same rows:
//! throughput per game and reasoner (log scale), speedup over the baseline (log scale) and
//! thread scaling of the CPU backend.
//!
//! Every bar and point carries its value as text, formatted like the table
//! ([`propnet_runtime::measure::format_rate`]), so the SVG's text holds the table's numbers; the PNG
//! holds them too, in an `iTXt` chunk (keyword [`PNG_DATA_KEY`], one `series\tgroup\tvalue`
//! line per bar or point).
//!
//! Text needs a font (plotters' `ab_glyph` feature): `PROPNET_FONT` when set, else the
//! first of [`FONT_CANDIDATES`] that exists (DejaVu Sans: Debian's `fonts-dejavu-core`,
//! installed by `scripts/setup.sh`). Without one, [`PlotError::NoFont`] says what to do.

use super::report::{speedup_text, Row};
use plotters::coord::Shift;
use plotters::prelude::*;
use propnet_runtime::measure::format_rate;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Keyword of the PNG `iTXt` chunk that holds the plotted values.
pub const PNG_DATA_KEY: &str = "propnet-data";

/// Font files tried, in order, when `PROPNET_FONT` is not set.
pub const FONT_CANDIDATES: &[&str] = &[
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
    "/System/Library/Fonts/Supplemental/Arial.ttf",
    "/Library/Fonts/Arial.ttf",
    "C:\\Windows\\Fonts\\arial.ttf",
];

/// Why a plot was not written.
#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    /// No usable font.
    #[error(
        "no font for plot text: install DejaVu Sans (Debian: apt-get install fonts-dejavu-core) \
         or set PROPNET_FONT to a .ttf file ({0})"
    )]
    NoFont(String),
    /// plotters failed.
    #[error("drawing {file}: {message}")]
    Draw {
        /// The file being drawn.
        file: String,
        /// plotters' message.
        message: String,
    },
    /// Writing the file failed (the message names the file).
    #[error(transparent)]
    Write(#[from] propnet_output::OutputError),
}

/// Registers the font once per process; the result is remembered.
fn font() -> Result<(), PlotError> {
    static FONT: OnceLock<Result<(), String>> = OnceLock::new();
    FONT.get_or_init(|| {
        let paths: Vec<PathBuf> = match std::env::var_os("PROPNET_FONT") {
            Some(p) => vec![PathBuf::from(p)],
            None => FONT_CANDIDATES.iter().map(PathBuf::from).collect(),
        };
        let Some((path, bytes)) = paths
            .iter()
            .find_map(|p| std::fs::read(p).ok().map(|b| (p, b)))
        else {
            return Err(format!("tried {}", paths.len()));
        };
        let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
        plotters::style::register_font("sans-serif", FontStyle::Normal, bytes)
            .map_err(|_| format!("{} is not a TrueType font", path.display()))
    })
    .clone()
    .map_err(PlotError::NoFont)
}

/// A grouped bar chart: one group per game, one bar per series (reasoner).
#[derive(Clone, Debug, PartialEq)]
pub struct Bars {
    /// Title.
    pub title: String,
    /// Y axis description.
    pub y_desc: String,
    /// Group names (games).
    pub groups: Vec<String>,
    /// Series names (reasoners).
    pub series: Vec<String>,
    /// `values[s][g]`: series `s` in group `g`, `None` for no bar.
    pub values: Vec<Vec<Option<f64>>>,
    /// Draw a horizontal line at this value (speedup 1).
    pub reference: Option<f64>,
    /// Label each bar as a speedup (`12.3x`) rather than a rate.
    pub speedup_labels: bool,
}

/// A line chart: playouts/s over thread counts, one line per game.
#[derive(Clone, Debug, PartialEq)]
pub struct Lines {
    /// Title.
    pub title: String,
    /// Series: name and (threads, value) points, threads ascending.
    pub series: Vec<(String, Vec<(f64, f64)>)>,
}

/// One of the plots.
#[derive(Clone, Debug, PartialEq)]
pub enum Chart {
    /// Grouped bars.
    Bars(Bars),
    /// Lines over thread counts.
    Lines(Lines),
}

/// Values a log axis reaches at most: a figure outside is drawn at the edge (its label
/// keeps the true value), so that no input makes an axis infinite.
pub const PLOT_LIMITS: (f64, f64) = (1e-100, 1e100);

/// Most decades a log axis spans below its highest value; a lower value is drawn at the
/// axis's foot (its label keeps the true value).
pub const MAX_DECADES: i32 = 12;

/// The least and greatest of the finite positive `values`, each clamped into
/// [`PLOT_LIMITS`]; `None` when there is none.
fn positive(values: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    values
        .filter(|v| v.is_finite() && *v > 0.0)
        .map(|v| v.clamp(PLOT_LIMITS.0, PLOT_LIMITS.1))
        .fold(None, |acc, v| match acc {
            None => Some((v, v)),
            Some((lo, hi)) => Some((lo.min(v), hi.max(v))),
        })
}

/// A log axis for `values` (non-finite and non-positive ones ignored): its foot `foot`
/// times below the least value but at most [`MAX_DECADES`] below the greatest, and
/// headroom above (see [`headroom`]). Always finite with `0 < lo < hi`: a range that is
/// not (no value, or arithmetic gone wrong) falls back to 1–10.
pub fn log_axis(values: impl Iterator<Item = f64>, foot: f64) -> (f64, f64) {
    let Some((min, max)) = positive(values) else {
        return headroom(1.0, 10.0);
    };
    let lo = (min / foot).max(max / 10f64.powi(MAX_DECADES));
    let (lo, hi) = headroom(lo, max);
    if lo.is_finite() && hi.is_finite() && lo > 0.0 && hi > lo {
        (lo, hi)
    } else {
        headroom(1.0, 10.0)
    }
}

/// `v` moved into the axis `(lo, hi)`, where plotters can place it.
fn on_axis(v: f64, (lo, hi): (f64, f64)) -> f64 {
    if v.is_nan() {
        lo
    } else {
        v.clamp(lo, hi)
    }
}

impl Chart {
    /// The plotted values as `(series, group, label)` (the PNG text chunk's content; a
    /// thread-scaling point's group is its thread count).
    pub fn labels(&self) -> Vec<(String, String, String)> {
        match self {
            Chart::Bars(b) => {
                let mut out = Vec::new();
                for (s, vals) in b.series.iter().zip(&b.values) {
                    for (g, v) in b.groups.iter().zip(vals) {
                        if let Some(v) = v {
                            out.push((s.clone(), g.clone(), b.label(*v)));
                        }
                    }
                }
                out
            }
            Chart::Lines(l) => l
                .series
                .iter()
                .flat_map(|(s, pts)| {
                    pts.iter()
                        .map(move |(t, v)| (s.clone(), format!("{t}"), format_rate(*v)))
                })
                .collect(),
        }
    }

    /// Pixel size: wide enough for every bar's label.
    fn size(&self) -> (u32, u32) {
        match self {
            Chart::Bars(b) => {
                let bars = (b.groups.len() * (b.series.len() + 1)) as u32;
                ((220 + 46 * bars).clamp(720, 4000), 560)
            }
            Chart::Lines(_) => (900, 560),
        }
    }
}

impl Bars {
    fn label(&self, v: f64) -> String {
        if self.speedup_labels {
            speedup_text(Some(v))
        } else {
            format_rate(v)
        }
    }
}

/// Highest thread count the scaling plot's x axis reaches (more than
/// [`super::reasoner::MAX_THREADS`]: a point beyond is drawn at the edge).
const MAX_AXIS_THREADS: u16 = 4096;

/// A log axis from `lo` whose top leaves the upper 40 % free for the legend and labels.
fn headroom(lo: f64, hi: f64) -> (f64, f64) {
    let span = (hi / lo).ln().max(1.0);
    (lo, lo * (span / 0.6).exp())
}

/// `x` as a whole number when it is one (axis labels of counts), else nothing.
fn whole(x: f64) -> String {
    if (x - x.round()).abs() < 1e-6 {
        format!("{:.0}", x.round())
    } else {
        String::new()
    }
}

type DrawErr<DB> = DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>;

fn palette(i: usize) -> RGBColor {
    const C: [RGBColor; 8] = [
        RGBColor(31, 119, 180),
        RGBColor(255, 127, 14),
        RGBColor(44, 160, 44),
        RGBColor(214, 39, 40),
        RGBColor(148, 103, 189),
        RGBColor(140, 86, 75),
        RGBColor(227, 119, 194),
        RGBColor(127, 127, 127),
    ];
    C[i % C.len()]
}

/// Both charts' coordinates: linear x, logarithmic y.
type Coords = Cartesian2d<plotters::coord::types::RangedCoordf64, LogCoord<f64>>;

/// The legend, upper left, over the headroom every chart leaves.
fn legend<'a, DB: DrawingBackend + 'a>(
    chart: &mut ChartContext<'a, DB, Coords>,
) -> Result<(), DrawErr<DB>> {
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 13))
        .draw()
}

fn draw_bars<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    b: &Bars,
) -> Result<(), DrawErr<DB>> {
    let all = b.values.iter().flatten().flatten().copied();
    let (lo, hi) = log_axis(all.chain(b.reference), 3.0);
    let at = |v: f64| on_axis(v, (lo, hi));
    let n = b.groups.len().max(1);
    let width = 1.0 / (b.series.len() as f64 + 1.0);
    // Group g is centred on x = g, so that the axis's key points are the group centres.
    let mut chart = ChartBuilder::on(area)
        .caption(&b.title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(70)
        .build_cartesian_2d(-0.5..n as f64 - 0.5, (lo..hi).log_scale())?;
    let groups = b.groups.clone();
    let name = |x: &f64| {
        let g = x.round();
        let hit = (x - g).abs() < 1e-6 && g >= 0.0;
        hit.then(|| groups.get(g as usize).cloned())
            .flatten()
            .unwrap_or_default()
    };
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(n)
        .y_labels(8)
        .light_line_style(RGBColor(238, 238, 238))
        .x_label_formatter(&name)
        .y_label_formatter(&|y| format_rate(*y))
        .y_desc(b.y_desc.as_str())
        .label_style(("sans-serif", 13))
        .draw()?;
    let label_style = TextStyle::from(("sans-serif", 11).into_font()).pos(
        plotters::style::text_anchor::Pos::new(
            plotters::style::text_anchor::HPos::Center,
            plotters::style::text_anchor::VPos::Bottom,
        ),
    );
    for (s, (name, vals)) in b.series.iter().zip(&b.values).enumerate() {
        let color = palette(s);
        let x0 = |g: usize| g as f64 - 0.5 + width * (s as f64 + 0.5);
        let bars: Vec<(usize, f64)> = vals
            .iter()
            .enumerate()
            .filter_map(|(g, v)| v.filter(|v| *v > 0.0).map(|v| (g, v)))
            .collect();
        chart
            .draw_series(bars.iter().map(|&(g, v)| {
                Rectangle::new([(x0(g), lo), (x0(g) + width * 0.9, at(v))], color.filled())
            }))?
            .label(name.as_str())
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], color.filled()));
        chart.draw_series(bars.iter().map(|&(g, v)| {
            Text::new(
                b.label(v),
                (x0(g) + width * 0.45, at(v)),
                label_style.clone(),
            )
        }))?;
    }
    if let Some(r) = b.reference.filter(|r| r.is_finite() && *r > 0.0) {
        let ends = [(-0.5, at(r)), (n as f64 - 0.5, at(r))];
        chart.draw_series(LineSeries::new(ends, BLACK.stroke_width(1)))?;
    }
    legend(&mut chart)
}

fn draw_lines<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    l: &Lines,
) -> Result<(), DrawErr<DB>> {
    let pts = || l.series.iter().flat_map(|(_, p)| p.iter().copied());
    let (lo, hi) = log_axis(pts().map(|p| p.1), 2.0);
    let tmax = pts()
        .map(|p| p.0)
        .filter(|t| t.is_finite())
        .fold(1.0f64, f64::max)
        .min(f64::from(MAX_AXIS_THREADS));
    // Points as plotters can place them: inside both axes.
    let at = |(t, v): (f64, f64)| (on_axis(t, (0.5, tmax + 0.5)), on_axis(v, (lo, hi)));
    let mut chart = ChartBuilder::on(area)
        .caption(&l.title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(0.5..tmax + 0.5, (lo..hi).log_scale())?;
    chart
        .configure_mesh()
        .x_desc("CPU threads")
        .y_desc("playouts/s")
        .x_labels((tmax as usize).clamp(1, 16))
        .y_labels(8)
        .light_line_style(RGBColor(238, 238, 238))
        .x_label_formatter(&|x| whole(*x))
        .y_label_formatter(&|y| format_rate(*y))
        .label_style(("sans-serif", 13))
        .draw()?;
    let label_style = TextStyle::from(("sans-serif", 11).into_font()).pos(
        plotters::style::text_anchor::Pos::new(
            plotters::style::text_anchor::HPos::Left,
            plotters::style::text_anchor::VPos::Bottom,
        ),
    );
    for (s, (name, p)) in l.series.iter().enumerate() {
        let color = palette(s);
        chart
            .draw_series(LineSeries::new(
                p.iter().map(|&q| at(q)),
                color.stroke_width(2),
            ))?
            .label(name.as_str())
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 14, y)], color.stroke_width(2)));
        chart.draw_series(p.iter().map(|&q| Circle::new(at(q), 4, color.filled())))?;
        // Labels up and to the right of their points, clear of the line.
        let dx = 0.02 * tmax;
        chart.draw_series(p.iter().map(|&(t, v)| {
            let (x, y) = at((t, v));
            Text::new(format_rate(v), (x + dx, y * 1.08), label_style.clone())
        }))?;
    }
    legend(&mut chart)
}

fn draw<DB: DrawingBackend>(area: DrawingArea<DB, Shift>, c: &Chart) -> Result<(), DrawErr<DB>> {
    area.fill(&WHITE)?;
    match c {
        Chart::Bars(b) => draw_bars(&area, b)?,
        Chart::Lines(l) => draw_lines(&area, l)?,
    }
    area.present()
}

/// Writes `chart` as SVG to `path`.
///
/// # Errors
/// [`PlotError`] when no font is found, drawing or writing fails.
pub fn write_svg(chart: &Chart, path: &Path) -> Result<(), PlotError> {
    font()?;
    let mut svg = String::new();
    {
        let area = SVGBackend::with_string(&mut svg, chart.size()).into_drawing_area();
        draw(area, chart).map_err(|e| PlotError::Draw {
            file: path.display().to_string(),
            message: e.to_string(),
        })?;
    }
    Ok(propnet_output::write(path, svg)?)
}

/// Writes `chart` as PNG (RGB, 8 bits) to `path`, with the plotted values in a text chunk.
///
/// # Errors
/// [`PlotError`] when no font is found, drawing, encoding or writing fails.
pub fn write_png(chart: &Chart, path: &Path) -> Result<(), PlotError> {
    font()?;
    let (w, h) = chart.size();
    let mut rgb = vec![0u8; (w * h * 3) as usize];
    let file = path.display().to_string();
    let fail = |message: String| PlotError::Draw {
        file: file.clone(),
        message,
    };
    {
        let area = BitMapBackend::with_buffer(&mut rgb, (w, h)).into_drawing_area();
        draw(area, chart).map_err(|e| fail(e.to_string()))?;
    }
    let data: Vec<String> = chart
        .labels()
        .into_iter()
        .map(|(s, g, v)| format!("{s}\t{g}\t{v}"))
        .collect();
    let mut bytes = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut bytes, w, h);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        enc.add_itxt_chunk(PNG_DATA_KEY.into(), data.join("\n"))
            .map_err(|e| fail(e.to_string()))?;
        let mut wr = enc.write_header().map_err(|e| fail(e.to_string()))?;
        wr.write_image_data(&rgb).map_err(|e| fail(e.to_string()))?;
    }
    Ok(propnet_output::write(path, bytes)?)
}

/// The three charts of a comparison: throughput, speedup over `baseline`, and thread
/// scaling (only when a game has CPU rows measured at two or more thread counts).
pub fn charts(rows: &[Row], baseline: &str) -> Vec<(&'static str, Chart)> {
    let mut groups: Vec<String> = Vec::new();
    let mut series: Vec<String> = Vec::new();
    for r in rows {
        if !groups.contains(&r.game) {
            groups.push(r.game.clone());
        }
        // Reasoners with nothing measured anywhere get no bar and no legend entry.
        if !series.contains(&r.reasoner) && r.playouts_per_second.is_some() {
            series.push(r.reasoner.clone());
        }
    }
    let value = |s: &str, g: &str, f: &dyn Fn(&Row) -> Option<f64>| {
        rows.iter()
            .find(|r| r.reasoner == s && r.game == g)
            .and_then(f)
    };
    let table = |f: &dyn Fn(&Row) -> Option<f64>| -> Vec<Vec<Option<f64>>> {
        series
            .iter()
            .map(|s| groups.iter().map(|g| value(s, g, f)).collect())
            .collect()
    };
    let mut out = vec![
        (
            "throughput",
            Chart::Bars(Bars {
                title: "Playouts per second (median of rounds, log scale)".into(),
                y_desc: "playouts/s".into(),
                groups: groups.clone(),
                series: series.clone(),
                values: table(&|r| r.playouts_per_second.map(|s| s.median)),
                reference: None,
                speedup_labels: false,
            }),
        ),
        (
            "speedup",
            Chart::Bars(Bars {
                title: format!("Speedup over {baseline} (playouts/s, log scale)"),
                y_desc: format!("× {baseline}"),
                groups: groups.clone(),
                series: series.clone(),
                values: table(&|r| r.speedup),
                reference: Some(1.0),
                speedup_labels: true,
            }),
        ),
    ];
    let scaling: Vec<(String, Vec<(f64, f64)>)> = groups
        .iter()
        .filter_map(|g| {
            let mut p: Vec<(f64, f64)> = rows
                .iter()
                .filter(|r| &r.game == g && r.kind == "netlist")
                .filter_map(|r| Some((r.threads? as f64, r.playouts_per_second?.median)))
                .collect();
            p.sort_by(|a, b| a.0.total_cmp(&b.0));
            p.dedup_by(|a, b| a.0 == b.0);
            (p.len() >= 2).then(|| (g.clone(), p))
        })
        .collect();
    if !scaling.is_empty() {
        out.push((
            "threads",
            Chart::Lines(Lines {
                title: "CPU backend thread scaling (playouts/s, log scale)".into(),
                series: scaling,
            }),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue #42 item 4: extreme but finite figures (1e190 ms for 10 rollouts gives
    /// 1e-186 playouts/s), infinities, NaN and denormals beside ordinary rates.
    fn extreme_values() -> Vec<f64> {
        vec![
            1e-186,
            1e5,
            f64::MAX,
            f64::MIN_POSITIVE,
            5e-324,
            f64::INFINITY,
            f64::NAN,
            -3.0,
            0.0,
        ]
    }

    #[test]
    fn log_axes_are_finite_for_any_values() {
        let mut cases: Vec<Vec<f64>> = extreme_values().into_iter().map(|v| vec![v]).collect();
        cases.push(extreme_values());
        cases.push(vec![]);
        cases.push(vec![1e-186, 1e5]);
        cases.push(vec![7.0, 7.0]);
        for vals in cases {
            for foot in [2.0, 3.0] {
                let (lo, hi) = log_axis(vals.iter().copied(), foot);
                assert!(
                    lo.is_finite() && hi.is_finite() && 0.0 < lo && lo < hi,
                    "{vals:?}"
                );
                assert!((hi / lo).log10() < 40.0, "{vals:?}: {lo}..{hi}");
            }
        }
        let (lo, hi) = log_axis([1e-186, 1e5].into_iter(), 3.0);
        assert!(lo >= 1e5 / 1e12 * 0.999 && hi >= 1e5, "{lo}..{hi}");
    }

    #[test]
    fn extreme_figures_are_drawn_in_bounded_time() {
        let vals: Vec<Option<f64>> = extreme_values().into_iter().map(Some).collect();
        let groups: Vec<String> = (0..vals.len()).map(|g| format!("g{g}")).collect();
        let bars = Chart::Bars(Bars {
            title: "t".into(),
            y_desc: "y".into(),
            groups: groups.clone(),
            series: vec!["a".into(), "b".into()],
            values: vec![vals.clone(), vals.iter().rev().copied().collect()],
            reference: Some(1.0),
            speedup_labels: true,
        });
        let pts: Vec<(f64, f64)> = extreme_values()
            .into_iter()
            .zip([
                1.0,
                2.0,
                f64::INFINITY,
                1e300,
                -1.0,
                f64::NAN,
                4.0,
                8.0,
                16.0,
            ])
            .map(|(v, t)| (t, v))
            .collect();
        let lines = Chart::Lines(Lines {
            title: "t".into(),
            series: vec![("g".into(), pts)],
        });
        let d = std::env::temp_dir().join(format!("propnet-plot-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        for (i, c) in [bars, lines].iter().enumerate() {
            match write_svg(c, &d.join(format!("{i}.svg"))) {
                Err(PlotError::NoFont(_)) => return,
                r => r.unwrap(),
            }
            write_png(c, &d.join(format!("{i}.png"))).unwrap();
        }
    }
}
