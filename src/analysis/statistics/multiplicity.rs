//! Many comparisons read together: the p-values one command prints form a family, and each is
//! adjusted for the others before a verdict is drawn from it — Holm's step-down method by default
//! (it holds the chance of any false "better" at alpha, whatever the comparisons' dependence), or
//! Benjamini–Hochberg's (the expected share of false discoveries), or none.

pub use crate::settings::Adjustment;

/// The adjusted p-values, in the order given. A NaN p-value is treated as 1.
pub fn adjust(p_values: &[f64], how: Adjustment) -> Vec<f64> {
    let m = p_values.len();
    let p: Vec<f64> = p_values
        .iter()
        .map(|p| if p.is_nan() { 1.0 } else { p.clamp(0.0, 1.0) })
        .collect();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&i, &j| p[i].total_cmp(&p[j]).then(i.cmp(&j)));
    let mut adjusted = vec![0.0; m];
    match how {
        Adjustment::None => return p,
        Adjustment::Holm => {
            let mut running: f64 = 0.0;
            for (rank, &i) in order.iter().enumerate() {
                running = running.max(((m - rank) as f64 * p[i]).min(1.0));
                adjusted[i] = running;
            }
        }
        Adjustment::Bh => {
            let mut running: f64 = 1.0;
            for (rank, &i) in order.iter().enumerate().rev() {
                running = running.min((m as f64 / (rank + 1) as f64 * p[i]).min(1.0));
                adjusted[i] = running;
            }
        }
    }
    adjusted
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::statistics::tests::assert_close;

    #[test]
    fn adjustments_match_statsmodels() {
        // statsmodels 0.15.0, `multipletests(p, method="holm" | "fdr_bh")[1]`.
        let p = [0.035, 0.021, 0.4, 0.0012, 0.9, 0.05];
        let holm = [0.14, 0.105, 0.8, 0.0072, 0.9, 0.15];
        let bh = [0.07, 0.063, 0.48, 0.0072, 0.9, 0.075];
        for (got, want) in adjust(&p, Adjustment::Holm).iter().zip(holm) {
            assert_close(*got, want, 1e-12);
        }
        for (got, want) in adjust(&p, Adjustment::Bh).iter().zip(bh) {
            assert_close(*got, want, 1e-12);
        }
        assert_eq!(adjust(&p, Adjustment::None), p.to_vec());
        assert!(adjust(&[], Adjustment::Holm).is_empty());
        assert_eq!(adjust(&[f64::NAN, 0.01], Adjustment::Holm), vec![1.0, 0.02]);
    }
}
