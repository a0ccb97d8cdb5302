//! The self-contained HTML report of a what-if replay: inline CSS and SVG only (no
//! script, font or image from anywhere), readable offline and safe to attach to an
//! incident ticket.
//!
//! Each run is one SVG panel on a shared time axis; with `--compare` the recorded run is
//! drawn above the replayed one. A panel has one lane per line, grouped by pool. In a
//! lane: red and amber bands are the breaker open and half-open; blue bars are the line's
//! share of its pool's requests in each time bucket; coloured bars on top are failed
//! attempts by outcome (height: share of the bucket's attempts on the line); dots above
//! are probes (green ok, red failed); a dark strip along a lane's top marks buckets of the
//! replayed run whose outcomes were inferred. Black ticks mark switches with their reason code;
//! dashed grey lines across the panel are network changes, purple ones the kill switch.
//! Every shape has a tooltip (`<title>`) with the exact numbers. Names from the trace are
//! escaped.
//!
//! A trace with requests recorded under `observe` is drawn as three panels whatever
//! `--compare` says: original (the recorded run: what happened), would-route (the replayed
//! run: what the policy would have done) and health (what the engine knew of each line
//! then, from [`health`]), under the [counterfactual](super::counterfactual) table. A trace
//! without any is drawn exactly as before.

use super::counterfactual::{Counterfactual, Split};
use super::health::{self, Health, HealthLane};
use super::summary::RunSummary;
use super::timeline::{add_inferred, build, lane_order, Lane, Timeline, BUCKETS};
use super::WhatIf;
use linekit_core::trace::TraceEvent;
use std::fmt::Write;

const LABEL_W: f64 = 170.0;
const PLOT_W: f64 = 1080.0;
const LANE_H: f64 = 44.0;
const AXIS_H: f64 = 28.0;
const TOP_H: f64 = 26.0;

/// Outcome colours for failures (ok is not drawn).
const FAILURE_COLORS: [(&str, &str); 9] = [
    ("connect_refused", "#d62728"),
    ("connect_timeout", "#ff7f0e"),
    ("dns_failure", "#8c564b"),
    ("tls_failure", "#e377c2"),
    ("http_5xx", "#9467bd"),
    ("read_timeout", "#bcbd22"),
    ("http_4xx", "#7f7f7f"),
    ("local_network", "#17becf"),
    ("cancelled", "#c7c7c7"),
];

fn failure_color(kind: &str) -> &'static str {
    FAILURE_COLORS
        .iter()
        .find(|(k, _)| *k == kind)
        .map_or("#000000", |(_, c)| c)
}

/// Escapes text for HTML and SVG content and attributes.
fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

fn seconds(ms: u64) -> String {
    if ms >= 60_000 {
        format!("{}m{:02}s", ms / 60_000, (ms % 60_000) / 1000)
    } else {
        format!("{:.1}s", ms as f64 / 1000.0)
    }
}

/// Renders the report of `w`; with `compare`, the recorded run above the replayed one.
pub fn render(w: &WhatIf, compare: bool) -> String {
    let recorded: &[TraceEvent] = &w.recorded;
    let replayed: &[TraceEvent] = &w.replayed.records;
    let end = recorded
        .last()
        .map_or(0, |r| r.at_ms)
        .max(replayed.last().map_or(0, |r| r.at_ms))
        .max(1);
    let observed = w.counterfactual.as_ref();
    let lanes = if compare || observed.is_some() {
        lane_order(&[recorded, replayed])
    } else {
        lane_order(&[replayed])
    };
    let mut html = String::new();
    html.push_str(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <title>Linekit what-if report</title>\n<style>\n",
    );
    html.push_str(CSS);
    if observed.is_some() {
        html.push_str(OBSERVE_CSS);
    }
    html.push_str("</style>\n</head>\n<body>\n<h1>Linekit what-if report</h1>\n");
    let _ = writeln!(
        html,
        "<p class=\"meta\">{} of traffic, {} lines, bucket {} ms. Bands: breaker \
         <span class=\"key open\">open</span> <span class=\"key half\">half-open</span>; \
         bars: <span class=\"key share\">share of the pool's requests</span> and failures by \
         outcome; dots: probes; ticks: switches (reason code); dashed: network changes; dark \
         strip on top: outcomes inferred (the recording did not try that line then).</p>",
        seconds(end),
        lanes.len(),
        super::timeline::bucket_ms(end)
    );
    html.push_str(&legend());
    if let Some(cf) = observed {
        html.push_str(&observe_report(w, cf, compare, &lanes, end));
        html.push_str("</body>\n</html>\n");
        return html;
    }
    if compare {
        let (recorded_summary, replayed_summary) = w.summaries();
        html.push_str(&summary_table(recorded_summary, replayed_summary));
        html.push_str(&panel(
            "recorded",
            "Recorded",
            &build(recorded, &lanes, end),
        ));
    }
    let mut replayed_timeline = build(replayed, &lanes, end);
    add_inferred(&mut replayed_timeline, &w.replayed.inferred_at);
    html.push_str(&panel(
        "replayed",
        "Replayed under the policy",
        &replayed_timeline,
    ));
    html.push_str("</body>\n</html>\n");
    html
}

/// The three panels of a trace recorded under `observe` (what happened, what the policy
/// would have done, the health known at the time), with the counterfactual table.
fn observe_report(
    w: &WhatIf,
    cf: &Counterfactual,
    compare: bool,
    lanes: &[(String, String)],
    end: u64,
) -> String {
    let mut s = String::new();
    s.push_str(
        "<p class=\"meta\">Recorded under <b>observe</b>: every request went to its original \
         URL. Original: what happened. Would-route: the same requests under the policy; \
         outcomes on lines the recording did not try are inferred from that line's nearest \
         probe or traffic (dark strip). Health: what the engine knew of each line then \
         (<span class=\"key unknown\">unknown</span> <span class=\"key healthy\">healthy</span> \
         <span class=\"key failing\">failing</span> <span class=\"key open\">open</span>; \
         black marks: routes the policy would have sent to a line not known healthy).</p>\n",
    );
    if compare {
        let (recorded_summary, replayed_summary) = w.summaries();
        s.push_str(&summary_table(recorded_summary, replayed_summary));
    }
    s.push_str(&counterfactual_table(cf));
    s.push_str(&panel(
        "recorded",
        "Original: what happened",
        &build(&w.recorded, lanes, end),
    ));
    let mut would = build(&w.replayed.records, lanes, end);
    add_inferred(&mut would, &w.replayed.inferred_at);
    s.push_str(&panel(
        "replayed",
        "Would-route: what the policy would have done",
        &would,
    ));
    s.push_str(&health_panel(
        "Health: line health known at the time",
        lanes,
        &health::build(&w.recorded, lanes, end),
        end,
    ));
    s
}

fn counterfactual_table(cf: &Counterfactual) -> String {
    let split = |name: &str, v: &Split| {
        (
            name.to_string(),
            v.requests.to_string(),
            v.recorded.to_string(),
            v.inferred.to_string(),
        )
    };
    let l = &cf.latency;
    let rows = [
        (
            "observed requests".to_string(),
            cf.requests.to_string(),
            "–".to_string(),
            "–".to_string(),
        ),
        (
            "failed as observed / under the policy".to_string(),
            format!("{} / {}", cf.failed.observed, cf.failed.on),
            "–".to_string(),
            "–".to_string(),
        ),
        split("saved (failed, would have succeeded)", &cf.saved.split),
        split("lost (succeeded, would have failed)", &cf.lost.split),
        split("moved to another line", &cf.moved),
        (
            format!("latency change over {} requests", l.requests),
            format!("{:+} ms", l.change_ms),
            format!("{:+} ms", l.recorded_ms),
            format!("{:+} ms", l.inferred_ms),
        ),
    ];
    let mut s = String::from(
        "<table class=\"summary counterfactual\"><tr><th>counterfactual</th><th>all</th>\
         <th>on recorded outcomes</th><th>on inferred outcomes</th></tr>\n",
    );
    for (name, all, recorded, inferred) in rows {
        let _ = writeln!(
            s,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(&name),
            esc(&all),
            esc(&recorded),
            esc(&inferred)
        );
    }
    let i = &cf.inferred_attempts;
    let _ = writeln!(
        s,
        "<tr><td>inferred attempts: from probes / traffic / assumed healthy</td>\
         <td colspan=\"3\">{} / {} / {}</td></tr>\n</table>",
        i.probe, i.traffic, i.assumed
    );
    s
}

fn health_color(h: Health) -> &'static str {
    match h {
        Health::Unknown => "#e0e0e0",
        Health::Healthy => "#a1d99b",
        Health::Failing => "#fdae6b",
        Health::Open => "#f6c6c6",
    }
}

/// The health lanes as an SVG panel: one band per run of buckets in the same state.
fn health_panel(
    title: &str,
    keys: &[(String, String)],
    lanes: &[HealthLane],
    end_ms: u64,
) -> String {
    let pools = pools_of(keys.iter().map(|(pool, _)| pool.as_str()));
    let height = panel_height(lanes.len(), pools.len());
    let bucket = super::timeline::bucket_ms(end_ms);
    let bar_w = PLOT_W / BUCKETS as f64;
    let mut s = panel_head("health", title, end_ms, height);
    let mut y = TOP_H + AXIS_H - 10.0;
    for pool in &pools {
        s.push_str(&pool_label(pool, y));
        y += 18.0;
        for ((_, line), lane) in keys.iter().zip(lanes).filter(|((p, _), _)| p == pool) {
            s.push_str(&lane_head(
                "health-lane",
                &format!("{pool}/{line}"),
                line,
                y,
            ));
            let mut from = 0;
            while from < BUCKETS {
                let state = lane.states[from];
                let to = (from..BUCKETS)
                    .find(|b| lane.states[*b] != state)
                    .unwrap_or(BUCKETS);
                let _ = writeln!(
                    s,
                    "<rect class=\"health health-{0}\" x=\"{1:.2}\" y=\"{2:.1}\" \
                     width=\"{3:.2}\" height=\"{4}\" fill=\"{5}\"><title>{6} {0} {7}–{8}\
                     </title></rect>",
                    state.as_str(),
                    LABEL_W + from as f64 * bar_w,
                    y + 14.0,
                    (to - from) as f64 * bar_w,
                    LANE_H - 20.0,
                    health_color(state),
                    esc(line),
                    seconds(from as u64 * bucket),
                    seconds((to as u64 * bucket).min(end_ms))
                );
                from = to;
            }
            for (b, n) in lane
                .unhealthy_picks
                .iter()
                .enumerate()
                .filter(|(_, n)| **n > 0)
            {
                let _ = writeln!(
                    s,
                    "<rect class=\"unhealthy-pick\" x=\"{:.2}\" y=\"{:.1}\" width=\"{:.2}\" \
                     height=\"6\" fill=\"#000\"><title>{} at {}: {n} routes would have gone \
                     here while it was not known healthy</title></rect>",
                    LABEL_W + b as f64 * bar_w,
                    y + LANE_H - 6.0,
                    bar_w,
                    esc(line),
                    seconds(b as u64 * bucket)
                );
            }
            s.push_str("</g>\n");
            y += LANE_H;
        }
    }
    s.push_str("</svg>\n");
    s
}

/// The health keys, for the report of an `observe` trace.
const OBSERVE_CSS: &str = ".key.unknown{background:#e0e0e0}.key.healthy{background:#a1d99b}\
.key.failing{background:#fdae6b}\n";

const CSS: &str = "body{font:14px/1.4 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;\
margin:16px;color:#222;background:#fff}\
h1{font-size:20px;margin:0 0 6px}h2{font-size:16px;margin:18px 0 4px}\
.meta{color:#555;margin:0 0 8px}\
.key{padding:0 4px;border-radius:3px}.key.open{background:#f6c6c6}.key.half{background:#fbe3a6}\
.key.share{background:#9ecae1}\
table.summary{border-collapse:collapse;margin:8px 0}\
table.summary td,table.summary th{border:1px solid #ccc;padding:2px 8px;text-align:right}\
table.summary th:first-child,table.summary td:first-child{text-align:left}\
.legend{display:flex;flex-wrap:wrap;gap:10px;margin:4px 0 8px;font-size:12px}\
.legend i{display:inline-block;width:10px;height:10px;margin-right:3px;vertical-align:-1px}\
svg.run{display:block;border:1px solid #ddd;background:#fff}\
svg text{font:11px system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;fill:#222}\
svg text.lane-label{font-size:12px}svg text.pool-label{font-weight:bold}\
svg text.reason{font-size:9px;fill:#000}svg text.net-label{font-size:9px;fill:#666}\n";

fn legend() -> String {
    let mut s = String::from("<div class=\"legend\">");
    for (kind, color) in FAILURE_COLORS {
        let _ = write!(s, "<span><i style=\"background:{color}\"></i>{kind}</span>");
    }
    s.push_str(
        "<span><i style=\"background:#2ca02c;border-radius:5px\"></i>probe ok</span>\
         <span><i style=\"background:#d62728;border-radius:5px\"></i>probe failed</span></div>\n",
    );
    s
}

fn summary_table(recorded: &RunSummary, replayed: &RunSummary) -> String {
    let count = |name, field: fn(&RunSummary) -> usize| {
        (
            name,
            field(recorded).to_string(),
            field(replayed).to_string(),
        )
    };
    let ms = |name, field: fn(&RunSummary) -> Option<u64>| {
        let show = |v: Option<u64>| v.map_or("–".to_string(), |ms| format!("{ms} ms"));
        (name, show(field(recorded)), show(field(replayed)))
    };
    let rows: Vec<(&str, String, String)> = vec![
        count("requests", |r| r.requests),
        count("requests on failing lines", |r| r.requests_on_failing_lines),
        count("failed requests", |r| r.failed_requests),
        count("in-call retries", |r| r.retries),
        count("switches", |r| r.switches),
        count("probes", |r| r.probes),
        count("breaker opens", |r| r.breaker_opens),
        ms("time to open the breaker", |r| r.time_to_open_ms),
        ms("time to move away", |r| r.time_to_move_away_ms),
        ms("time to move back", |r| r.time_to_move_back_ms),
        (
            "inferred attempts / probes",
            "–".to_string(),
            format!(
                "{} / {}",
                replayed.inferred_attempts.unwrap_or(0),
                replayed.inferred_probes.unwrap_or(0)
            ),
        ),
    ];
    let mut s = String::from(
        "<table class=\"summary\"><tr><th></th><th>recorded</th><th>replayed</th></tr>\n",
    );
    for (name, a, b) in rows {
        let _ = writeln!(
            s,
            "<tr><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(name),
            esc(&a),
            esc(&b)
        );
    }
    s.push_str("</table>\n");
    s
}

/// The pools of `lanes`, in order of first appearance.
fn pools_of<'a>(lanes: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let mut p: Vec<&str> = Vec::new();
    for pool in lanes {
        if !p.contains(&pool) {
            p.push(pool);
        }
    }
    p
}

/// A pool's label above its lanes, at `y`.
fn pool_label(pool: &str, y: f64) -> String {
    format!(
        "<text class=\"pool-label\" x=\"4\" y=\"{:.1}\">{}</text>\n",
        y + 12.0,
        esc(pool)
    )
}

/// The height of a panel of `lanes` lanes in `pools` pools.
fn panel_height(lanes: usize, pools: usize) -> f64 {
    TOP_H + AXIS_H + LANE_H * lanes as f64 + 18.0 * pools as f64
}

/// The x coordinate of `at` on an axis of `end_ms`.
fn x_of(at: u64, end_ms: u64) -> f64 {
    LABEL_W + PLOT_W * (at as f64 / end_ms.max(1) as f64)
}

/// A panel's title, its `<svg>` element and its time axis.
fn panel_head(id: &str, title: &str, end_ms: u64, height: f64) -> String {
    let width = LABEL_W + PLOT_W + 20.0;
    let x = |at: u64| x_of(at, end_ms);
    let mut s = String::new();
    let _ = writeln!(s, "<h2>{}</h2>", esc(title));
    let _ = writeln!(
        s,
        "<svg class=\"run\" data-run=\"{id}\" xmlns=\"http://www.w3.org/2000/svg\" \
         width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\">"
    );
    // Axis.
    let _ = writeln!(s, "<g class=\"axis\">");
    let step = tick_step(end_ms);
    let mut at = 0;
    while at <= end_ms {
        let _ = writeln!(
            s,
            "<line x1=\"{0:.1}\" y1=\"{1}\" x2=\"{0:.1}\" y2=\"{2}\" stroke=\"#eee\"/>\
             <text x=\"{0:.1}\" y=\"{3}\" text-anchor=\"middle\">{4}</text>",
            x(at),
            TOP_H,
            height,
            TOP_H - 8.0,
            seconds(at)
        );
        at += step;
    }
    s.push_str("</g>\n");
    s
}

/// One run as an SVG panel.
fn panel(id: &str, title: &str, t: &Timeline) -> String {
    let pools = pools_of(t.lanes.iter().map(|l| l.pool.as_str()));
    let height = panel_height(t.lanes.len(), pools.len());
    let x = |at: u64| x_of(at, t.end_ms);
    let mut s = panel_head(id, title, t.end_ms, height);
    let mut y = TOP_H + AXIS_H - 10.0;
    let mut lane_y: Vec<(String, f64)> = Vec::new();
    for pool in &pools {
        s.push_str(&pool_label(pool, y));
        y += 18.0;
        for lane in t.lanes.iter().filter(|l| l.pool == *pool) {
            s.push_str(&lane_svg(lane, y, t, &x));
            lane_y.push((lane.key.clone(), y));
            y += LANE_H;
        }
    }
    // Switches: a tick on the destination lane, labelled with the reason code when there
    // is room since the previous label.
    s.push_str("<g class=\"switches\">\n");
    let mut last_label_x = f64::MIN;
    for sw in &t.switches {
        let key = format!("{}/{}", sw.pool, sw.to);
        let Some((_, ly)) = lane_y.iter().find(|(k, _)| *k == key) else {
            continue;
        };
        let sx = x(sw.at);
        let _ = writeln!(
            s,
            "<line class=\"switch\" x1=\"{sx:.1}\" y1=\"{:.1}\" x2=\"{sx:.1}\" y2=\"{:.1}\" \
             stroke=\"#000\" stroke-width=\"1.5\"><title>{} {} → {} at {} ({})</title></line>",
            ly + 2.0,
            ly + LANE_H - 2.0,
            esc(&sw.pool),
            esc(&sw.from),
            esc(&sw.to),
            seconds(sw.at),
            esc(&sw.reason)
        );
        if sx - last_label_x > 70.0 {
            let _ = writeln!(
                s,
                "<text class=\"reason\" x=\"{:.1}\" y=\"{:.1}\">{}</text>",
                sx + 2.0,
                ly + LANE_H - 4.0,
                esc(&sw.reason)
            );
            last_label_x = sx;
        }
    }
    s.push_str("</g>\n<g class=\"world\">\n");
    for (at, label) in &t.networks {
        let nx = x(*at);
        let _ = writeln!(
            s,
            "<line class=\"net\" x1=\"{nx:.1}\" y1=\"{TOP_H}\" x2=\"{nx:.1}\" y2=\"{height}\" \
             stroke=\"#888\" stroke-dasharray=\"4 3\"><title>{} at {}</title></line>\
             <text class=\"net-label\" x=\"{:.1}\" y=\"{:.1}\">{}</text>",
            esc(label),
            seconds(*at),
            nx + 2.0,
            TOP_H + 8.0,
            esc(label)
        );
    }
    for (at, on) in &t.downgrades {
        let dx = x(*at);
        let label = if *on {
            "kill switch on"
        } else {
            "kill switch off"
        };
        let _ = writeln!(
            s,
            "<line class=\"downgrade\" x1=\"{dx:.1}\" y1=\"{TOP_H}\" x2=\"{dx:.1}\" \
             y2=\"{height}\" stroke=\"#7b3fbf\" stroke-dasharray=\"2 2\"><title>{label} at {}\
             </title></line>",
            seconds(*at)
        );
    }
    s.push_str("</g>\n</svg>\n");
    s
}

fn tick_step(end_ms: u64) -> u64 {
    let target = end_ms / 10;
    [
        100, 200, 500, 1_000, 2_000, 5_000, 10_000, 30_000, 60_000, 120_000, 300_000, 600_000,
        1_800_000, 3_600_000,
    ]
    .into_iter()
    .find(|s| *s >= target)
    .unwrap_or(3_600_000)
}

/// A lane's group element (of `class`), background and label.
fn lane_head(class: &str, key: &str, line: &str, y: f64) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "<g class=\"{class}\" data-line=\"{}\">\
         <rect class=\"lane-bg\" x=\"{LABEL_W}\" y=\"{y:.1}\" width=\"{PLOT_W}\" \
         height=\"{LANE_H}\" fill=\"#fafafa\" stroke=\"#e5e5e5\"/>\
         <text class=\"lane-label\" x=\"12\" y=\"{:.1}\">{}</text>",
        esc(key),
        y + LANE_H / 2.0 + 4.0,
        esc(line)
    );
    s
}

fn lane_svg(lane: &Lane, y: f64, t: &Timeline, x: &dyn Fn(u64) -> f64) -> String {
    let mut s = lane_head("lane", &lane.key, &lane.line, y);
    for b in &lane.bands {
        let (x0, x1) = (x(b.from), x(b.to));
        let (fill, name) = match b.state {
            "open" => ("#f6c6c6", "open"),
            _ => ("#fbe3a6", "half-open"),
        };
        let _ = writeln!(
            s,
            "<rect class=\"band band-{}\" x=\"{x0:.1}\" y=\"{y:.1}\" width=\"{:.1}\" \
             height=\"{LANE_H}\" fill=\"{fill}\"><title>{} breaker {name} {}–{}</title></rect>",
            b.state,
            (x1 - x0).max(1.0),
            esc(&lane.line),
            seconds(b.from),
            seconds(b.to)
        );
    }
    let bar_w = PLOT_W / BUCKETS as f64;
    let bar_h = LANE_H - 12.0;
    let base = y + LANE_H - 1.0;
    for b in 0..BUCKETS {
        let n = lane.attempts[b];
        let bx = LABEL_W + b as f64 * bar_w;
        let from = b as u64 * t.bucket_ms;
        if n > 0 {
            let h = (lane.share[b] as f64 * bar_h).max(1.0);
            let _ = writeln!(
                s,
                "<rect class=\"share\" x=\"{bx:.2}\" y=\"{:.2}\" width=\"{:.2}\" height=\"{h:.2}\" \
                 fill=\"#6baed6\"><title>{} at {}: {n} requests, {:.0}% of the pool</title></rect>",
                base - h,
                bar_w,
                esc(&lane.line),
                seconds(from),
                lane.share[b] * 100.0
            );
            let mut top = base;
            for (kind, count) in &lane.failures[b] {
                let fh = (*count as f64 / n as f64 * lane.share[b] as f64 * bar_h).max(1.5);
                top -= fh;
                let _ = writeln!(
                    s,
                    "<rect class=\"fail fail-{}\" x=\"{bx:.2}\" y=\"{top:.2}\" width=\"{:.2}\" \
                     height=\"{fh:.2}\" fill=\"{}\"><title>{} at {}: {count} {}</title></rect>",
                    esc(kind),
                    bar_w,
                    failure_color(kind),
                    esc(&lane.line),
                    seconds(from),
                    esc(kind)
                );
            }
        } else if let Some((kind, count)) = lane.failures[b].iter().next() {
            // Failures reported in a bucket without routing (late reports).
            let _ = writeln!(
                s,
                "<rect class=\"fail fail-{}\" x=\"{bx:.2}\" y=\"{:.2}\" width=\"{:.2}\" \
                 height=\"2\" fill=\"{}\"><title>{} at {}: {count} {}</title></rect>",
                esc(kind),
                base - 2.0,
                bar_w,
                failure_color(kind),
                esc(&lane.line),
                seconds(from),
                esc(kind)
            );
        }
        if lane.inferred[b] > 0 {
            let _ = writeln!(
                s,
                "<rect class=\"inferred\" x=\"{bx:.2}\" y=\"{:.1}\" width=\"{:.2}\" height=\"3\" \
                 fill=\"#555\"><title>{} at {}: {} of {n} outcomes inferred from nearby evidence\
                 </title></rect>",
                y + 1.0,
                bar_w,
                esc(&lane.line),
                seconds(from),
                lane.inferred[b]
            );
        }
        let (ok, failed) = lane.probes[b];
        if ok + failed > 0 {
            let color = if failed > 0 { "#d62728" } else { "#2ca02c" };
            let class = if failed > 0 {
                "probe-failed"
            } else {
                "probe-ok"
            };
            let _ = writeln!(
                s,
                "<circle class=\"probe {class}\" cx=\"{:.2}\" cy=\"{:.1}\" r=\"3\" fill=\"{color}\">\
                 <title>{} probes at {}: {ok} ok, {failed} failed</title></circle>",
                bx + bar_w / 2.0,
                y + 5.0,
                esc(&lane.line),
                seconds(from)
            );
        }
    }
    s.push_str("</g>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_escaped() {
        assert_eq!(
            esc("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
    }
}
