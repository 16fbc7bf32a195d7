//! PLL settings for the board shell: the iCE40 `SB_PLL40_CORE` (simple feedback) and the
//! ECP5 `EHXPLLL` (feedback from CLKOP), searched over the dividers within the ranges the
//! vendors' datasheets give (iCE40 sysCLOCK PLL: PFD 10–133 MHz, VCO 533–1066 MHz, output
//! 16–275 MHz; ECP5 sysCLOCK PLL: PFD 3.125–400 MHz, VCO 400–800 MHz), as `icepll` and
//! `ecppll` of Project IceStorm / Trellis do.

/// iCE40 PLL dividers: `f_out = f_in · (DIVF + 1) / ((DIVR + 1) · 2^DIVQ)`.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Ice40Pll {
    /// Reference divider − 1 (0..=15).
    pub divr: u32,
    /// Feedback divider − 1 (0..=127).
    pub divf: u32,
    /// Output divider exponent (1..=6).
    pub divq: u32,
    /// Loop filter range from the PFD frequency (1..=6).
    pub filter_range: u32,
    /// The output frequency reached, MHz.
    pub mhz: f64,
}

/// The iCE40 PLL setting closest to `want_mhz` from `in_mhz` that does not exceed it, or
/// `None` when no setting lies in 16 MHz..=`want_mhz`.
pub fn ice40(in_mhz: f64, want_mhz: f64) -> Option<Ice40Pll> {
    let mut best: Option<Ice40Pll> = None;
    for divr in 0..=15u32 {
        let pfd = in_mhz / f64::from(divr + 1);
        if !(10.0..=133.0).contains(&pfd) {
            continue;
        }
        for divf in 0..=127u32 {
            let vco = pfd * f64::from(divf + 1);
            if !(533.0..=1066.0).contains(&vco) {
                continue;
            }
            for divq in 1..=6u32 {
                let out = vco / f64::from(1u32 << divq);
                if !(16.0..=275.0).contains(&out) || out > want_mhz + 1e-9 {
                    continue;
                }
                if best.is_none_or(|b| out > b.mhz + 1e-9) {
                    let filter_range = match pfd {
                        p if p < 17.0 => 1,
                        p if p < 26.0 => 2,
                        p if p < 44.0 => 3,
                        p if p < 66.0 => 4,
                        p if p < 101.0 => 5,
                        _ => 6,
                    };
                    best = Some(Ice40Pll {
                        divr,
                        divf,
                        divq,
                        filter_range,
                        mhz: out,
                    });
                }
            }
        }
    }
    best
}

/// ECP5 PLL dividers: `f_out = f_in · CLKFB_DIV / CLKI_DIV`, VCO = `f_out · CLKOP_DIV`.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Ecp5Pll {
    /// Reference divider (1..=128).
    pub clki_div: u32,
    /// Feedback divider (1..=80).
    pub clkfb_div: u32,
    /// Output divider (1..=128).
    pub clkop_div: u32,
    /// The output frequency reached, MHz.
    pub mhz: f64,
}

/// The ECP5 PLL setting closest to `want_mhz` from `in_mhz` without exceeding it (VCO nearest
/// 600 MHz among equals), or `None` when none lies in 3.125..=`want_mhz` MHz.
pub fn ecp5(in_mhz: f64, want_mhz: f64) -> Option<Ecp5Pll> {
    let mut best: Option<(Ecp5Pll, f64)> = None;
    for clki_div in 1..=128u32 {
        let pfd = in_mhz / f64::from(clki_div);
        if !(3.125..=400.0).contains(&pfd) {
            continue;
        }
        for clkfb_div in 1..=80u32 {
            let out = pfd * f64::from(clkfb_div);
            if out > want_mhz + 1e-9 {
                continue;
            }
            for clkop_div in 1..=128u32 {
                let vco = out * f64::from(clkop_div);
                if !(400.0..=800.0).contains(&vco) {
                    continue;
                }
                let better = match best {
                    None => true,
                    Some((b, bv)) => {
                        out > b.mhz + 1e-9
                            || ((out - b.mhz).abs() < 1e-9
                                && (vco - 600.0).abs() < (bv - 600.0).abs())
                    }
                };
                if better {
                    let p = Ecp5Pll {
                        clki_div,
                        clkfb_div,
                        clkop_div,
                        mhz: out,
                    };
                    best = Some((p, vco));
                }
            }
        }
    }
    best.map(|(p, _)| p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ice40_pll_from_12_mhz() {
        let p = ice40(12.0, 48.0).unwrap();
        assert!((p.mhz - 48.0).abs() < 1e-9, "{p:?}");
        let vco = 12.0 / f64::from(p.divr + 1) * f64::from(p.divf + 1);
        assert!((533.0..=1066.0).contains(&vco));
        assert!(ice40(12.0, 10.0).is_none());
        let q = ice40(12.0, 67.3).unwrap();
        assert!(q.mhz <= 67.3 && q.mhz > 60.0, "{q:?}");
    }

    #[test]
    fn ecp5_pll_from_25_mhz() {
        let p = ecp5(25.0, 100.0).unwrap();
        assert!((p.mhz - 100.0).abs() < 1e-9, "{p:?}");
        let vco = p.mhz * f64::from(p.clkop_div);
        assert!((400.0..=800.0).contains(&vco));
        let q = ecp5(25.0, 87.3).unwrap();
        assert!(q.mhz <= 87.3 && q.mhz > 85.0, "{q:?}");
    }
}
