//! `cargo xtask bench-client [--rounds R] [--calls N]`: what a call through
//! the generated client costs over the same call sent by hand with reqwest,
//! against one release server, in alternating rounds of the same run (the
//! `client_overhead` example does the calling).

use crate::bench::{http, seed_pets, unlimited_key};
use crate::launch::launch;
use crate::{project_root, run};
use std::process::{Command, Stdio};

pub fn bench_client(args: &[&str]) -> Result<(), String> {
    let mut rounds = "9".to_string();
    let mut calls = "2000".to_string();
    let mut rest = args.iter();
    while let Some(flag) = rest.next() {
        let value = rest.next().ok_or(format!("{flag} needs a number"))?;
        value
            .parse::<u32>()
            .map_err(|_| format!("{flag} needs a number, not {value}"))?;
        match *flag {
            "--rounds" => rounds = value.to_string(),
            "--calls" => calls = value.to_string(),
            _ => return Err(format!("unknown option {flag}")),
        }
    }
    run(
        "cargo",
        &[
            "build",
            "--release",
            "--quiet",
            "-p",
            "petstore-server",
            "--bin",
            "petstore-server",
            "-p",
            "petstore-examples",
            "--example",
            "client_overhead",
        ],
    )?;
    let root = project_root();
    let dir = std::env::temp_dir().join(format!("petstore-bench-client-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let url = format!("sqlite://{}", dir.join("bench.db").display());
    let server_bin = root.join("target/release/petstore-server");
    let key = unlimited_key(&server_bin, &url)?;
    let server = launch(
        Command::new(&server_bin)
            .args(["--listen", "127.0.0.1:0", "--database-url", &url])
            .env("RUST_LOG", "warn")
            .stderr(Stdio::null()),
    )?;
    seed_pets(&server.address, &key, 1)?;
    let order = http(
        &server.address,
        "POST",
        "/v1/store/orders",
        &key,
        Some(r#"{"petId": 1, "quantity": 1}"#),
    )?;
    if order.status != 201 {
        return Err(format!(
            "placing the order answered {}: {}",
            order.status, order.body
        ));
    }
    let base = format!("http://{}/v1", server.address);
    let output = Command::new(root.join("target/release/examples/client_overhead"))
        .args([&base, &key, "1", &rounds, &calls])
        .output()
        .map_err(|e| e.to_string())?;
    if !output.status.success() {
        return Err(String::from_utf8_lossy(&output.stderr).into_owned());
    }
    let mut generated = Vec::new();
    let mut bare = Vec::new();
    let mut ratios = Vec::new();
    for line in String::from_utf8_lossy(&output.stdout).lines().skip(1) {
        let fields: Vec<f64> = line
            .split(',')
            .skip(1)
            .filter_map(|f| f.parse().ok())
            .collect();
        if let [g, b] = fields[..] {
            generated.push(g);
            bare.push(b);
            ratios.push(g / b);
        }
    }
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).copied().unwrap_or(0.0)
    };
    println!(
        "\n{rounds} alternating rounds of {calls} sequential `GET /v1/store/orders/{{id}}` on one kept-alive connection, release builds, the server on SQLite\n"
    );
    println!("| | µs per call (median round) |");
    println!("|---|---:|");
    println!(
        "| generated client (`get_order`) | {:.1} |",
        median(generated.clone())
    );
    println!(
        "| bare reqwest, same request and decoding | {:.1} |",
        median(bare.clone())
    );
    println!(
        "\nratio generated / bare: {:.3} (median of the rounds' ratios; rounds: {})",
        median(ratios.clone()),
        ratios
            .iter()
            .map(|r| format!("{r:.3}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}
