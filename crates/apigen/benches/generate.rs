//! `cargo bench -p apigen`: the whole generator (parse, lower, emit, format) on
//! the pet store spec and on the largest document of the corpus beside the
//! project (`../shared/corpus/stripe-spec3.yaml`, 4.2 MB), each next to a
//! baseline measured in the same run: parsing the same YAML into a
//! `serde_yaml::Value`, the least any generator reading the document must do.
//! The ratio of the two tells how much the generator adds to reading the file.
//! "reference page only" is the part of `generate` that builds `docs.html`
//! (it runs beside the Rust emitters, on the same pool of threads).

use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Duration;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn config() -> apigen::Config {
    apigen::Config {
        command: "cargo bench".into(),
        source: "bench".into(),
        runtime: apigen::Runtime::Crate,
        group_features: false,
        serde_sides: false,
        lenient: true,
        check_formats: false,
    }
}

fn bench_document(c: &mut Criterion, name: &str, path: &Path, samples: usize, time: Duration) {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) => {
            println!("skipping {name}: cannot read {}: {e}", path.display());
            return;
        }
    };
    let mut group = c.benchmark_group(name);
    group.sample_size(samples).measurement_time(time);
    group.bench_function("parse YAML only (baseline)", |b| {
        b.iter(|| black_box(serde_yaml::from_str::<serde_yaml::Value>(black_box(&text)).unwrap()))
    });
    let config = config();
    group.bench_function("generate", |b| {
        b.iter(|| {
            let generated = apigen::generate(name, black_box(&text), &config).unwrap();
            black_box(generated.files.len())
        })
    });
    let api = apigen::generate(name, &text, &config).unwrap().api;
    group.bench_function("reference page only", |b| {
        b.iter(|| black_box(apigen::emit::docs::page(black_box(&api), "cargo bench").len()))
    });
    group.finish();
}

fn benches(c: &mut Criterion) {
    bench_document(
        c,
        "petstore",
        &workspace().join("spec/openapi.yaml"),
        50,
        Duration::from_secs(5),
    );
    bench_document(
        c,
        "stripe",
        &workspace().join("../shared/corpus/stripe-spec3.yaml"),
        10,
        Duration::from_secs(40),
    );
}

criterion_group!(generator, benches);
criterion_main!(generator);
