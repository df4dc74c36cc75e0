//! Tests of the whole page: a realistic sample run, an empty one and degenerate inputs rendered
//! end to end, checked for escaping, balance, section order and series tags; the sample page is
//! also written out for the browser check. `empty_page` and `assert_clean` serve the heat map's
//! tests too.

use super::page_parts::PageParts;
use super::*;
use crate::document::{ConfusionCounts, Curve, CurvePoint, ForestRow, LatencySeries, Table};

fn point(x: f64, estimate: f64, trials: u64) -> CurvePoint {
    CurvePoint {
        x,
        estimate,
        low: (estimate - 0.06).max(0.0),
        high: (estimate + 0.05).min(1.0),
        trials,
    }
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

fn sample_page() -> PageParts {
    PageParts {
        title: "mcpick run 20261201T002437Z-dd692d5d".to_string(),
        summary_tables: vec![
            Table {
                caption: "Accuracy by backend".to_string(),
                header: strings(&["backend", "trials", "accuracy", "95% interval", "median ms"]),
                rows: vec![
                    strings(&["claude-sonnet", "600", "84.2%", "81.1–86.9%", "912"]),
                    strings(&[
                        "qwen <local> & \"friends\"",
                        "600",
                        "71.0%",
                        "67.3–74.5%",
                        "2 410",
                    ]),
                    strings(&["gpt-4o-mini", "598", "79.9%", "76.5–82.9%", "640"]),
                ],
            },
            Table {
                caption: "Prompts that need escaping: <script>alert(1)</script> & \"quotes\""
                    .to_string(),
                header: strings(&["case", "note"]),
                rows: vec![
                    strings(&["<script>alert('x')</script>", "A & B < C > D"]),
                    strings(&["it's", "\"quoted\""]),
                    strings(&["short row"]),
                ],
            },
        ],
        size_curves: vec![
            Curve {
                series: "claude-sonnet".to_string(),
                points: vec![
                    point(5.0, 0.95, 200),
                    point(50.0, 0.88, 200),
                    point(500.0, 0.71, 200),
                ],
            },
            Curve {
                series: "qwen <local> / \"tuned\"".to_string(),
                points: vec![
                    point(5.0, 0.9, 200),
                    point(20.0, 0.82, 200),
                    CurvePoint {
                        x: 50.0,
                        estimate: f64::NAN,
                        low: f64::NAN,
                        high: 0.8,
                        trials: 0,
                    },
                    point(200.0, 0.55, 200),
                    point(500.0, 0.41, 200),
                ],
            },
        ],
        token_curves: vec![],
        position_curves: vec![Curve {
            series: "claude-sonnet".to_string(),
            points: (1..=10)
                .map(|p| point(p as f64, 0.92 - p as f64 * 0.02, 60))
                .collect(),
        }],
        ab_comparisons: vec![ForestRow {
            backend: "claude-sonnet".to_string(),
            arm_a: "plain descriptions".to_string(),
            arm_b: "rewritten descriptions".to_string(),
            difference: 0.052,
            low: 0.011,
            high: 0.094,
            p_value: 0.013,
            verdict: "B better".to_string(),
        }],
        confusions: vec![ConfusionCounts {
            backend: "claude-sonnet".to_string(),
            expected: strings(&["read_file", "write_file", "search <code>"]),
            picked: strings(&["read_file", "write_file", "search <code>", "(none)"]),
            counts: vec![vec![40, 3, 1, 2], vec![5, 30, 0, 1], vec![2, 0, 25, 6]],
        }],
        latencies: vec![
            LatencySeries {
                series: "claude-sonnet".to_string(),
                latencies_ms: (0..200)
                    .map(|i| 400.0 + (i as f64 * 37.0) % 1900.0)
                    .collect(),
            },
            LatencySeries {
                series: "qwen <local> / \"tuned\"".to_string(),
                latencies_ms: (0..150)
                    .map(|i| {
                        if i == 7 {
                            f64::NAN
                        } else {
                            90.0 + (i as f64 * 53.0) % 4000.0
                        }
                    })
                    .collect(),
            },
        ],
        manifest_json: "{\n  \"run\": \"20261201T002437Z-dd692d5d\",\n  \"note\": \"<b>&</b>\"\n}"
            .to_string(),
    }
}

pub fn empty_page() -> PageParts {
    PageParts {
        title: String::new(),
        summary_tables: vec![],
        size_curves: vec![],
        position_curves: vec![],
        token_curves: vec![],
        ab_comparisons: vec![],
        confusions: vec![],
        latencies: vec![],
        manifest_json: String::new(),
    }
}

pub fn assert_clean(html: &str) {
    assert_eq!(html.matches("<svg").count(), html.matches("</svg>").count());
    assert_eq!(
        html.matches("<g").count(),
        html.matches("</g>").count(),
        "unbalanced <g>"
    );
    for bad in ["NaN", "inf", "Infinity", "<script>alert"] {
        assert!(!html.contains(bad), "output contains {bad:?}");
    }
    assert_eq!(html.matches("<script>").count(), 1);
}

#[test]
fn escape_handles_all_five_special_characters() {
    assert_eq!(
        escape(r#"<a href="x">Tom & Jerry's</a>"#),
        "&lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry&#39;s&lt;/a&gt;"
    );
    assert_eq!(escape("plain — ü"), "plain — ü");
}

#[test]
fn sample_page_has_one_chart_per_kind() {
    let html = render(&sample_page().build());
    for (kind, expected) in [
        ("size", 1),
        ("position", 1),
        ("ab", 1),
        ("confusion", 1),
        ("latency", 1),
    ] {
        let found = html.matches(&format!("data-chart=\"{kind}\"")).count();
        assert_eq!(found, expected, "charts of kind {kind}");
    }
    assert_eq!(html.matches("data-chart=").count(), 5);
    assert_eq!(html.matches("class=\"chart\"").count(), 5);
}

#[test]
fn every_series_name_is_tagged() {
    let page = sample_page();
    let html = render(&page.build());
    let names = page
        .size_curves
        .iter()
        .chain(&page.position_curves)
        .map(|c| &c.series)
        .chain(page.ab_comparisons.iter().map(|c| &c.backend))
        .chain(page.confusions.iter().map(|c| &c.backend))
        .chain(page.latencies.iter().map(|l| &l.series));
    for name in names {
        let attribute = format!("data-series=\"{}\"", escape(name));
        assert!(html.contains(&attribute), "missing {attribute}");
    }
    // 3×4 cells, each tagged with its backend.
    assert_eq!(
        html.matches("<rect data-series=\"claude-sonnet\"").count(),
        12
    );
    assert!(html.contains("<title>expected read_file, picked write_file: 3</title>"));
    assert!(html.contains("<title>expected search &lt;code&gt;, picked (none): 6</title>"));
}

#[test]
fn untrusted_text_is_escaped() {
    let html = render(&sample_page().build());
    assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quotes&quot;"));
    assert!(html.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"));
    assert!(html.contains("A &amp; B &lt; C &gt; D"));
    assert!(html.contains("qwen &lt;local&gt; / &quot;tuned&quot;"));
    assert!(html.contains("&quot;note&quot;: &quot;&lt;b&gt;&amp;&lt;/b&gt;&quot;"));
    assert!(!html.contains("<script>alert"));
    assert!(!html.contains("<local>"));
}

#[test]
fn sample_output_is_balanced_and_has_no_non_finite_numbers() {
    let html = render(&sample_page().build());
    assert_clean(&html);
    // The missing point is reported, and numbers are right-aligned.
    assert!(html.contains("1 point with a missing value"));
    assert!(html.contains("<td class=\"num\">84.2%</td>"));
    assert!(html.contains("<td>claude-sonnet</td>"));
    assert!(html.contains("<pre id=\"render-check\""));
    for id in [
        "summary",
        "ab",
        "size",
        "position",
        "confusion",
        "latency",
        "manifest",
    ] {
        assert!(
            html.contains(&format!("<a href=\"#{id}\">")),
            "nav link {id}"
        );
    }
    // Sections come in the documented order.
    let order: Vec<usize> = [
        "id=\"summary\"",
        "id=\"ab\"",
        "id=\"size\"",
        "id=\"position\"",
        "id=\"confusion\"",
        "id=\"latency\"",
        "id=\"manifest\"",
    ]
    .iter()
    .map(|s| html.find(s).unwrap_or(usize::MAX))
    .collect();
    assert!(
        order.windows(2).all(|w| w[0] < w[1]),
        "section order {order:?}"
    );
}

#[test]
fn empty_page_renders_without_sections() {
    let html = render(&empty_page().build());
    assert_clean(&html);
    assert!(html.contains("<h1>mcpick report</h1>"));
    assert!(!html.contains("<section"));
    assert!(!html.contains("<nav>"));
    assert!(!html.contains("<svg"));
    assert!(html.ends_with("</html>\n"));
}

#[test]
fn degenerate_inputs_do_not_panic() {
    let mut page = empty_page();
    page.title = "odd".to_string();
    page.summary_tables = vec![Table {
        caption: String::new(),
        header: vec![],
        rows: vec![vec![], strings(&["x", "1"])],
    }];
    page.size_curves = vec![
        Curve {
            series: "empty".to_string(),
            points: vec![],
        },
        Curve {
            series: "one".to_string(),
            points: vec![point(10.0, 0.5, 3)],
        },
        Curve {
            series: "bad".to_string(),
            points: vec![
                CurvePoint {
                    x: 0.0,
                    estimate: 0.5,
                    low: 0.4,
                    high: 0.6,
                    trials: 1,
                },
                CurvePoint {
                    x: -3.0,
                    estimate: 0.5,
                    low: 0.4,
                    high: 0.6,
                    trials: 1,
                },
                CurvePoint {
                    x: f64::INFINITY,
                    estimate: 0.5,
                    low: 0.4,
                    high: 0.6,
                    trials: 1,
                },
                CurvePoint {
                    x: 10.0,
                    estimate: 7.0,
                    low: f64::NEG_INFINITY,
                    high: -2.0,
                    trials: 1,
                },
            ],
        },
    ];
    page.position_curves = vec![Curve {
        series: "all missing".to_string(),
        points: vec![CurvePoint {
            x: f64::NAN,
            estimate: f64::NAN,
            low: f64::NAN,
            high: f64::NAN,
            trials: 0,
        }],
    }];
    page.ab_comparisons = vec![
        ForestRow {
            backend: "zero".to_string(),
            arm_a: String::new(),
            arm_b: String::new(),
            difference: 0.0,
            low: 0.0,
            high: 0.0,
            p_value: 1.0,
            verdict: String::new(),
        },
        ForestRow {
            backend: "missing".to_string(),
            arm_a: "a".to_string(),
            arm_b: "b".to_string(),
            difference: f64::NAN,
            low: f64::INFINITY,
            high: f64::NAN,
            p_value: f64::NAN,
            verdict: "?".to_string(),
        },
    ];
    page.confusions = vec![
        ConfusionCounts {
            backend: "blank".to_string(),
            expected: vec![],
            picked: vec![],
            counts: vec![],
        },
        ConfusionCounts {
            backend: "ragged".to_string(),
            expected: strings(&["a", "b", "c"]),
            picked: strings(&["a"]),
            counts: vec![vec![1, 2, 3, 4], vec![], vec![u64::MAX]],
        },
    ];
    page.latencies = vec![
        LatencySeries {
            series: "none".to_string(),
            latencies_ms: vec![],
        },
        LatencySeries {
            series: "nan only".to_string(),
            latencies_ms: vec![f64::NAN, f64::INFINITY],
        },
        LatencySeries {
            series: "single".to_string(),
            latencies_ms: vec![250.0],
        },
        LatencySeries {
            series: "zero and negative".to_string(),
            latencies_ms: vec![0.0, -5.0, 1e-300, 1e300],
        },
    ];
    let html = render(&page.build());
    assert_clean(&html);
    // The blank matrix has no confusion to show: a sentence, not an empty drawing.
    assert_eq!(html.matches("data-chart=\"confusion\"").count(), 1);
    assert!(html.contains("No heat map for blank"));
    assert!(html.contains("no plottable points"));
    assert!(html.contains("no measurements"));

    // Every single-valued range in isolation as well.
    let mut flat = empty_page();
    flat.latencies = vec![LatencySeries {
        series: "same".to_string(),
        latencies_ms: vec![5.0; 4],
    }];
    flat.position_curves = vec![Curve {
        series: "p".to_string(),
        points: vec![point(1.0, 1.0, 1), point(1.0, 0.0, 1)],
    }];
    assert_clean(&render(&flat.build()));
}

#[test]
fn sample_page_is_written_for_the_browser_check() {
    // HTML_REPORT_SAMPLE picks the destination; by default it lands in the temp folder
    // rather than in the source tree.
    let path = std::env::var_os("HTML_REPORT_SAMPLE")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("mcpick-sample-report.html"));
    std::fs::write(&path, render(&sample_page().build())).expect("write sample report");
}
