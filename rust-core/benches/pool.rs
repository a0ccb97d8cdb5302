//! Line pool hot paths: `select` on a sticky hit in an 8-line pool, and `record`.

#[path = "../tests/support/lines.rs"]
mod lines;

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use linekit_core::config::Thresholds;
use linekit_core::line::{LinePool, Outcome, Protocol};

fn eight_line_pool() -> LinePool {
    let mut pool = LinePool::new(
        Protocol::Http,
        &lines::cdn_lines(8),
        &Thresholds::default(),
        false,
    )
    .expect("valid bench pool");
    for i in 0..8 {
        pool.record(0, i, Outcome::Ok, Some(200), 50 + i as u64 * 10);
    }
    pool.select(1, &[]);
    pool
}

fn bench_pool(c: &mut Criterion) {
    let mut pool = eight_line_pool();
    c.bench_function("pool_select_sticky_8_lines", |b| {
        b.iter(|| black_box(pool.select(black_box(2), &[])))
    });

    let mut pool = eight_line_pool();
    let mut now = 2u64;
    c.bench_function("pool_record_ok", |b| {
        b.iter(|| {
            now += 1;
            pool.record(black_box(now), black_box(0), Outcome::Ok, Some(200), 42);
        })
    });

    let mut pool = eight_line_pool();
    let mut now = 2u64;
    c.bench_function("pool_select_rerank_8_lines", |b| {
        b.iter(|| {
            // Advance past the switch interval so every call re-ranks.
            now += 10_000;
            black_box(pool.select(black_box(now), &[]))
        })
    });
}

criterion_group!(benches, bench_pool);
criterion_main!(benches);
