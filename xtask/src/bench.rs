//! `cargo xtask bench`: the pet store server under load, in one run, against
//! a bare route answering the same bytes from memory (the framework's limit
//! on this machine) on each framework; the store on axum against the store
//! on actix-web; and the generated glue alone (the mock of one operation,
//! optimized) against the bare route on each framework.
//!
//! Both servers run release builds on loopback; wrk (installed with apt when
//! missing) drives each endpoint for a fixed time with a fixed number of
//! connections. Printed: requests/s, p50 and p99 latency, each as a ratio to
//! the bare route, and the server's memory after the run.
//!
//! Each endpoint is measured in rounds that alternate the two servers (server
//! then bare, bare then server, ...), and a ratio is taken within each round:
//! the machine's speed drifts by 10-20% over a minute (the bare route alone
//! has measured anywhere from 60k to 92k req/s), and one long run of each
//! compares two different machines. The table gives the median round and
//! every round's ratio.

use crate::launch::launch;
use crate::{project_root, run, succeed};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

const CONNECTIONS: &str = "32";
const PETS: u32 = 200;

/// A response as the bare route replays it.
pub(crate) struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

/// The text of a request with a JSON body (empty when there is none).
fn request_text(
    address: &str,
    method: &str,
    path: &str,
    key: &str,
    body: Option<&str>,
    connection: &str,
) -> String {
    let body = body.unwrap_or("");
    format!(
        "{method} {path} HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {key}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: {connection}\r\n\r\n{body}",
        body.len()
    )
}

/// Sends an endpoint's sample request `n` times over one kept-alive
/// connection, each answer read whole and required to be a success.
fn send(address: &str, endpoint: &Endpoint, key: &str, n: u32) -> Result<(), String> {
    let fail = |e: std::io::Error| format!("{} {}: {e}", endpoint.method, endpoint.sample_path);
    let mut stream = TcpStream::connect(address).map_err(fail)?;
    let mut answers = BufReader::new(stream.try_clone().map_err(fail)?);
    let request = request_text(
        address,
        endpoint.method,
        &endpoint.sample_path,
        key,
        endpoint.sample_body.as_deref(),
        "keep-alive",
    );
    let mut line = String::new();
    for _ in 0..n {
        stream.write_all(request.as_bytes()).map_err(fail)?;
        line.clear();
        answers.read_line(&mut line).map_err(fail)?;
        if !line.starts_with("HTTP/1.1 2") {
            return Err(format!(
                "{} {} answered {line:?}",
                endpoint.method, endpoint.sample_path
            ));
        }
        let mut length = 0;
        loop {
            line.clear();
            answers.read_line(&mut line).map_err(fail)?;
            match line.split_once(':') {
                Some((name, value)) if name.eq_ignore_ascii_case("content-length") => {
                    length = value
                        .trim()
                        .parse()
                        .map_err(|_| format!("bad length {value:?}"))?;
                }
                Some(_) => {}
                None if line.trim().is_empty() => break,
                None => return Err(format!("malformed header line {line:?}")),
            }
        }
        let mut body = vec![0; length];
        answers.read_exact(&mut body).map_err(fail)?;
    }
    Ok(())
}

/// Seeds an empty database through the API: a category and pets 1 to
/// `pets` in it, each well stocked. Each answer must be a success naming the
/// id that loads rely on.
pub(crate) fn seed_pets(address: &str, key: &str, pets: u32) -> Result<(), String> {
    let seed = |method: &str, path: &str, body: &str, names: String| -> Result<(), String> {
        let reply = http(address, method, path, key, Some(body))?;
        if !(200..300).contains(&reply.status) || !reply.body.contains(&names) {
            return Err(format!(
                "seeding: {method} {path} answered {} {}; the database must be empty",
                reply.status, reply.body
            ));
        }
        Ok(())
    };
    seed(
        "POST",
        "/v1/categories",
        r#"{"name": "Dogs"}"#,
        r#""id":1,"#.into(),
    )?;
    for i in 1..=pets {
        let pet = format!(r#"{{"name": "Pet {i}", "categoryId": 1}}"#);
        seed("POST", "/v1/pets", &pet, format!(r#""id":{i},"#))?;
        let stock = r#"{"quantity": 1000000}"#;
        seed(
            "PATCH",
            &format!("/v1/inventory/{i}"),
            stock,
            format!(r#""petId":{i},"#),
        )?;
    }
    Ok(())
}

/// One HTTP/1.1 request, read whole.
pub(crate) fn http(
    address: &str,
    method: &str,
    path: &str,
    key: &str,
    body: Option<&str>,
) -> Result<Reply, String> {
    let mut stream = TcpStream::connect(address).map_err(|e| e.to_string())?;
    let request = request_text(address, method, path, key, body, "close");
    stream
        .write_all(request.as_bytes())
        .map_err(|e| e.to_string())?;
    let mut raw = String::new();
    stream.read_to_string(&mut raw).map_err(|e| e.to_string())?;
    let (head, body) = raw.split_once("\r\n\r\n").ok_or("malformed response")?;
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|s| s.parse().ok())
        .ok_or("no status")?;
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect();
    Ok(Reply {
        status,
        headers,
        body: body.to_string(),
    })
}

struct Endpoint {
    name: &'static str,
    method: &'static str,
    /// A Lua expression for the path.
    path: &'static str,
    /// A Lua expression for the body, if any.
    body: Option<&'static str>,
    sample_path: String,
    sample_body: Option<String>,
}

fn endpoints() -> Vec<Endpoint> {
    vec![
        Endpoint {
            name: "GET /v1/pets/{id}",
            method: "GET",
            path: r#""/v1/pets/" .. math.random(1, 200)"#,
            body: None,
            sample_path: "/v1/pets/7".into(),
            sample_body: None,
        },
        Endpoint {
            name: "GET /v1/pets?limit=20",
            method: "GET",
            path: r#""/v1/pets?limit=20""#,
            body: None,
            sample_path: "/v1/pets?limit=20".into(),
            sample_body: None,
        },
        Endpoint {
            name: "POST /v1/store/orders",
            method: "POST",
            path: r#""/v1/store/orders""#,
            body: Some(r#"'{"petId": ' .. math.random(1, 200) .. ', "quantity": 1}'"#),
            sample_path: "/v1/store/orders".into(),
            sample_body: Some(r#"{"petId": 7, "quantity": 1}"#.into()),
        },
        Endpoint {
            name: "PATCH /v1/inventory/{id}",
            method: "PATCH",
            path: r#""/v1/inventory/" .. math.random(1, 200)"#,
            body: Some(r#"'{"quantity": ' .. math.random(100000, 1000000) .. '}'"#),
            sample_path: "/v1/inventory/7".into(),
            sample_body: Some(r#"{"quantity": 500000}"#.into()),
        },
    ]
}

fn lua(endpoint: &Endpoint, key: &str) -> String {
    let body = endpoint.body.unwrap_or("nil");
    format!(
        "wrk.headers[\"Authorization\"] = \"Bearer {key}\"\nwrk.headers[\"Content-Type\"] = \"application/json\"\nrequest = function()\n  return wrk.format(\"{}\", {}, nil, {body})\nend\n",
        endpoint.method, endpoint.path
    )
}

#[derive(Debug, Clone, Copy, Default)]
struct Load {
    rps: f64,
    p50_ms: f64,
    p99_ms: f64,
    errors: u64,
}

fn duration_ms(text: &str) -> Option<f64> {
    let (number, unit) = text.split_at(text.find(|c: char| c.is_alphabetic())?);
    let n: f64 = number.parse().ok()?;
    Some(match unit {
        "us" => n / 1000.0,
        "ms" => n,
        "s" => n * 1000.0,
        "m" => n * 60_000.0,
        _ => return None,
    })
}

fn wrk(address: &str, script: &Path, seconds: u32) -> Result<Load, String> {
    let out = Command::new("wrk")
        .args([
            "-t1",
            "-c",
            CONNECTIONS,
            "-d",
            &format!("{seconds}s"),
            "--latency",
            "-s",
        ])
        .arg(script)
        .arg(format!("http://{address}"))
        .output()
        .map_err(|e| format!("cannot run wrk: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let mut load = Load::default();
    for line in text.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["Requests/sec:", n] => load.rps = n.parse().unwrap_or(0.0),
            ["50%", t] => load.p50_ms = duration_ms(t).unwrap_or(0.0),
            ["99%", t] => load.p99_ms = duration_ms(t).unwrap_or(0.0),
            ["Non-2xx", "or", "3xx", "responses:", n] => {
                load.errors += n.parse::<u64>().unwrap_or(0)
            }
            ["Socket", "errors:", ..] => load.errors += 1,
            _ => {}
        }
    }
    if load.rps == 0.0 {
        return Err(format!("wrk printed no result:\n{text}"));
    }
    Ok(load)
}

/// Requests sent to a process under callgrind before counting starts.
const WARM_UP: u32 = 200;

/// A process run under callgrind with instrumentation off until asked for:
/// start-up and warm-up are not counted.
struct Counted {
    pid: u32,
    out_file: PathBuf,
    dumps: u32,
}

/// The command that runs `program`: directly, or under callgrind writing
/// its counts to `counts` (see [`Counted`]).
fn command_for(program: &Path, counts: Option<&Path>) -> Command {
    let Some(counts) = counts else {
        return Command::new(program);
    };
    let mut command = Command::new("valgrind");
    command
        .args(["--tool=callgrind", "--instr-atstart=no"])
        .arg(format!("--callgrind-out-file={}", counts.display()))
        .arg(program);
    command
}

impl Counted {
    fn new(pid: u32, out_file: PathBuf) -> Counted {
        Counted {
            pid,
            out_file,
            dumps: 0,
        }
    }

    fn control(&self, args: &[&str]) -> Result<(), String> {
        let pid = self.pid.to_string();
        succeed(
            Command::new("callgrind_control")
                .args(args)
                .arg(&pid)
                .stdout(Stdio::null())
                .stderr(Stdio::null()),
            &format!("callgrind_control {} {pid}", args.join(" ")),
        )
    }

    /// User-space instructions the whole process runs per request, over `n`
    /// of the endpoint's sample requests after `WARM_UP` uncounted ones.
    fn per_request(
        &mut self,
        address: &str,
        endpoint: &Endpoint,
        key: &str,
        n: u32,
    ) -> Result<f64, String> {
        send(address, endpoint, key, WARM_UP)?;
        self.control(&["-i", "on"])?;
        send(address, endpoint, key, n)?;
        self.control(&["-i", "off"])?;
        self.control(&["-d"])?;
        self.dumps += 1;
        let dump = PathBuf::from(format!("{}.{}", self.out_file.display(), self.dumps));
        for _ in 0..200 {
            let text = std::fs::read_to_string(&dump).unwrap_or_default();
            let totals = text
                .lines()
                .find_map(|l| l.strip_prefix("totals:"))
                .and_then(|n| n.trim().parse::<f64>().ok());
            if let Some(totals) = totals {
                return Ok(totals / f64::from(n));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        Err(format!("no callgrind dump at {}", dump.display()))
    }
}

fn memory_kb(pid: u32, field: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// What `cargo xtask bench` was asked for.
pub struct Options {
    seconds: u32,
    rounds: u32,
    /// Only the endpoints whose name contains this.
    only: Option<String>,
    /// An empty database to run on instead of a fresh SQLite file.
    database_url: Option<String>,
    /// Count instructions over this many requests per endpoint instead of
    /// timing a load.
    instructions: Option<u32>,
    /// Another build of the server to measure (an earlier commit's, built
    /// elsewhere), instead of this tree's.
    server_binary: Option<PathBuf>,
    /// Only the generated glue's and the mock's routes, not the store.
    glue_only: bool,
}

impl Options {
    /// `[--seconds N] [--rounds R] [--only TEXT] [--database-url URL]
    /// [--instructions N] [--server-binary PATH] [--glue]`: N seconds per
    /// server per round; only the endpoints whose name contains TEXT; on the
    /// empty database at URL; instructions counted over N requests instead
    /// of a timed load; the server built at PATH instead of this tree's;
    /// only the generated route's and the mock's pairs.
    pub fn parse(args: &[&str]) -> Result<Options, String> {
        let mut options = Options {
            seconds: 4,
            rounds: 5,
            only: None,
            database_url: None,
            instructions: None,
            server_binary: None,
            glue_only: false,
        };
        let positive = |flag: &str, value: &str| {
            value
                .parse()
                .ok()
                .filter(|n| *n > 0)
                .ok_or(format!("{flag} needs a positive number, not {value}"))
        };
        let mut args = args.iter();
        while let Some(&flag) = args.next() {
            let mut value = || args.next().ok_or(format!("{flag} needs a value"));
            match flag {
                "--seconds" => options.seconds = positive(flag, value()?)?,
                "--rounds" => options.rounds = positive(flag, value()?)?,
                "--only" => options.only = Some(value()?.to_string()),
                "--database-url" => options.database_url = Some(value()?.to_string()),
                "--instructions" => options.instructions = Some(positive(flag, value()?)?),
                "--server-binary" => options.server_binary = Some(PathBuf::from(value()?)),
                "--glue" => options.glue_only = true,
                _ => return Err(format!("unknown bench option: {flag}")),
            }
        }
        Ok(options)
    }
}

/// The median of some values (the upper one of the middle two).
fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or(0.0)
}

pub fn bench(options: Options) -> Result<(), String> {
    let endpoints: Vec<Endpoint> = endpoints()
        .into_iter()
        .filter(|e| {
            options
                .only
                .as_ref()
                .is_none_or(|only| e.name.contains(only.as_str()))
        })
        .collect();
    if endpoints.is_empty() {
        return Err(format!(
            "no endpoint's name contains {:?}",
            options.only.unwrap_or_default()
        ));
    }
    let tool = if options.instructions.is_some() {
        "valgrind"
    } else {
        "wrk"
    };
    if Command::new(tool).arg("--version").output().is_err() {
        run("apt-get", &["install", "-y", "-qq", tool])?;
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
            "--example",
            "bare_route",
            "-p",
            "apigen-cli",
            "--bin",
            "apigen",
        ],
    )?;
    let dir: PathBuf = std::env::temp_dir().join(format!("petstore-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let result = match options.instructions {
        Some(n) => instructions(&options, &endpoints, &dir, n),
        None => loads(&options, &endpoints, &dir),
    };
    std::thread::sleep(Duration::from_millis(100));
    let _ = std::fs::remove_dir_all(&dir);
    result
}

/// The servers the benchmark builds: the pet store's and the bare route.
struct Binaries {
    server: PathBuf,
    bare: PathBuf,
}

impl Binaries {
    fn of(options: &Options) -> Binaries {
        let root = project_root();
        Binaries {
            server: options
                .server_binary
                .clone()
                .unwrap_or_else(|| root.join("target/release/petstore-server")),
            bare: root.join("target/release/examples/bare_route"),
        }
    }
}

/// The pet store on `framework` (counted by callgrind into `counts` when
/// given), on the database at `url`.
fn store(
    binaries: &Binaries,
    url: &str,
    framework: &str,
    counts: Option<&Path>,
) -> Result<crate::launch::Launched, String> {
    launch(
        command_for(&binaries.server, counts)
            .args(["--listen", "127.0.0.1:0", "--database-url", url])
            .args(["--framework", framework])
            .env("RUST_LOG", "info")
            .stderr(Stdio::null()),
    )
}

/// The bare route on `framework` answering what `reply` says (counted by
/// callgrind into `counts` when given), its recording written in `dir`;
/// routed by the framework to `route`'s `GET` when given.
fn bare(
    binaries: &Binaries,
    reply: Reply,
    framework: &str,
    dir: &Path,
    counts: Option<&Path>,
    route: Option<&str>,
) -> Result<crate::launch::Launched, String> {
    let Reply {
        status,
        headers,
        body,
    } = reply;
    let headers: Vec<(String, String)> = headers
        .into_iter()
        .filter(|(k, _)| {
            !matches!(
                k.to_ascii_lowercase().as_str(),
                "content-length" | "date" | "connection"
            )
        })
        .collect();
    let recorded =
        serde_json::json!({"status": status, "headers": headers, "body": body}).to_string();
    let file = dir.join(format!("recorded-{framework}.json"));
    std::fs::write(&file, recorded).map_err(|e| e.to_string())?;
    launch(
        command_for(&binaries.bare, counts)
            .arg("127.0.0.1:0")
            .arg(&file)
            .arg(framework)
            .args(route)
            .stderr(Stdio::null()),
    )
}

/// The endpoint's sample request to the server at `address`, answered.
fn sample(address: &str, endpoint: &Endpoint, key: &str) -> Result<Reply, String> {
    http(
        address,
        endpoint.method,
        &endpoint.sample_path,
        key,
        endpoint.sample_body.as_deref(),
    )
}

/// The servers at `ours` and `theirs` under the same load, `rounds` times
/// each, alternating which goes first: their loads, round by round.
fn alternate(
    ours: &str,
    theirs: &str,
    script: &Path,
    options: &Options,
) -> Result<(Vec<Load>, Vec<Load>), String> {
    let (mut mine, mut other) = (Vec::new(), Vec::new());
    for round in 0..options.rounds {
        if round % 2 == 0 {
            mine.push(wrk(ours, script, options.seconds)?);
            other.push(wrk(theirs, script, options.seconds)?);
        } else {
            other.push(wrk(theirs, script, options.seconds)?);
            mine.push(wrk(ours, script, options.seconds)?);
        }
    }
    Ok((mine, other))
}

/// A table's row: `ours` against `theirs`, the ratio of the median
/// requests per second of each round, and every round's.
fn row(name: &str, ours: &[Load], theirs: &[Load]) -> String {
    let ratios: Vec<f64> = ours
        .iter()
        .zip(theirs)
        .map(|(o, t)| o.rps / t.rps)
        .collect();
    let each =
        |loads: &[Load], field: fn(&Load) -> f64| -> Vec<f64> { loads.iter().map(field).collect() };
    format!(
        "| {name} | {:.0} | {:.0} | {:.2} | {} | {:.2} / {:.2} | {:.2} / {:.2} | {:.2} | {} |",
        median(each(ours, |l| l.rps)),
        median(each(theirs, |l| l.rps)),
        median(ratios.clone()),
        ratios
            .iter()
            .map(|r| format!("{r:.2}"))
            .collect::<Vec<_>>()
            .join(", "),
        median(each(ours, |l| l.p50_ms)),
        median(each(ours, |l| l.p99_ms)),
        median(each(theirs, |l| l.p50_ms)),
        median(each(theirs, |l| l.p99_ms)),
        each(ours, |l| l.p99_ms).into_iter().fold(0.0, f64::max),
        ours.iter().map(|l| l.errors).sum::<u64>()
    )
}

/// A table of [`row`]s, `ours` and `theirs` naming the two sides.
fn table(title: &str, ours: &str, theirs: &str, rows: &[String]) {
    println!("\n{title}\n");
    println!(
        "| endpoint | {ours} req/s | {theirs} req/s | ratio | ratio per round | {ours} p50 / p99 (ms) | {theirs} p50 / p99 (ms) | {ours} worst p99 (ms) | non-2xx |"
    );
    println!("|---|---:|---:|---:|---|---:|---:|---:|---:|");
    for row in rows {
        println!("{row}");
    }
}

/// The timed loads, in one run: the store against the bare route on each
/// framework, the store on axum against the store on actix-web (the same
/// database, the same key), and the generated glue alone against the bare
/// route on each framework.
fn loads(options: &Options, endpoints: &[Endpoint], dir: &Path) -> Result<(), String> {
    let binaries = Binaries::of(options);
    if options.glue_only {
        return glue(&binaries, dir, options);
    }
    let url = options
        .database_url
        .clone()
        .unwrap_or_else(|| format!("sqlite://{}", dir.join("bench.db").display()));
    println!(
        "\n{} rounds of {} s per server, alternating; {CONNECTIONS} connections, wrk with 1 thread, every server a release build on this machine; the store on {}",
        options.rounds,
        options.seconds,
        if url.starts_with("sqlite:") { "SQLite" } else { "PostgreSQL" }
    );
    let key = unlimited_key(&binaries.server, &url)?;
    // Both stores on one database, as two instances share one: seeded once.
    let actix = store(&binaries, &url, "actix", None)?;
    seed_pets(&actix.address, &key, PETS)?;
    let axum = store(&binaries, &url, "axum", None)?;
    let script_of = |endpoint: &Endpoint| -> Result<PathBuf, String> {
        let script = dir.join(format!("{}.lua", endpoint.method));
        std::fs::write(&script, lua(endpoint, &key)).map_err(|e| e.to_string())?;
        Ok(script)
    };
    for (framework, server) in [("actix", &actix), ("axum", &axum)] {
        let mut rows = Vec::new();
        for endpoint in endpoints {
            let script = script_of(endpoint)?;
            // The bare route answers exactly what the store answered.
            let reply = sample(&server.address, endpoint, &key)?;
            let bare = bare(&binaries, reply, framework, dir, None, None)?;
            let (ours, theirs) = alternate(&server.address, &bare.address, &script, options)?;
            rows.push(row(endpoint.name, &ours, &theirs));
        }
        table(
            &format!("The store against a bare route, both on {framework}"),
            "store",
            "bare",
            &rows,
        );
        println!(
            "\nthe store's memory after the run: {:.1} MB resident, {:.1} MB peak",
            memory_kb(server.id(), "VmRSS:") as f64 / 1024.0,
            memory_kb(server.id(), "VmHWM:") as f64 / 1024.0
        );
    }
    let mut rows = Vec::new();
    for endpoint in endpoints.iter().filter(|e| e.method == "GET") {
        let script = script_of(endpoint)?;
        let (ours, theirs) = alternate(&axum.address, &actix.address, &script, options)?;
        rows.push(row(endpoint.name, &ours, &theirs));
    }
    table(
        "The store on axum against the store on actix-web (reads)",
        "axum",
        "actix",
        &rows,
    );
    drop((actix, axum));
    glue(&binaries, dir, options)
}

/// A document of one operation: the generated glue alone (routing,
/// extraction and validation of a path parameter, rendering of a model).
/// Its example is what its mock answers.
const ONE_OPERATION: &str = r#"openapi: 3.0.3
info: {title: One pet, version: '1'}
paths:
  /pets/{petId}:
    get:
      operationId: getPet
      parameters:
        - {name: petId, in: path, required: true, schema: {type: integer, format: int64, minimum: 1}}
      responses:
        '200':
          description: A pet.
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Pet'}
              example: {id: 7, name: Rex, status: available, tags: [good, dog]}
components:
  schemas:
    Pet:
      type: object
      required: [id, name, status]
      properties:
        id: {type: integer, format: int64}
        name: {type: string, maxLength: 100}
        status: {type: string, enum: [available, pending, sold]}
        tags: {type: array, items: {type: string}}
"#;

/// The server of [`ONE_OPERATION`]'s generated crate: its route trait
/// answering a fixed pet, served as each framework's documentation serves
/// a router (`glue-server ADDR actix|axum`).
const GLUE_SERVER: &str = r#"use one_pet::{glue, models, operations, runtime};
use std::sync::Arc;

struct Fixed;

impl operations::Api for Fixed {
    async fn get_pet(
        &self,
        request: operations::GetPetRequest,
        _context: runtime::RequestContext,
    ) -> Result<operations::GetPetResponse, operations::ErrorResponse> {
        Ok(operations::GetPetResponse::Ok(models::Pet {
            id: request.pet_id,
            name: "Rex".into(),
            status: models::PetStatus::Available,
            tags: Some(vec!["good".into(), "dog".into()]),
        }))
    }
}

impl glue::Rejections for Fixed {
    fn reject(&self, rejection: runtime::Rejection) -> operations::ErrorResponse {
        operations::ErrorResponse::new(
            rejection.status(),
            serde_json::json!({"message": rejection.message}),
        )
    }
}

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let address = args.get(1).cloned().unwrap_or_else(|| "127.0.0.1:0".into());
    match args.get(2).map_or("actix", String::as_str) {
        "axum" => tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()?
            .block_on(async {
                let listener = tokio::net::TcpListener::bind(&address).await?;
                println!("glue listening on {}", listener.local_addr()?);
                axum::serve(listener, one_pet::axum::router(Arc::new(Fixed))).await
            }),
        _ => actix_web::rt::System::new().block_on(async {
            let service = actix_web::web::Data::new(Fixed);
            let server = actix_web::HttpServer::new(move || {
                let service = service.clone();
                actix_web::App::new()
                    .configure(move |cfg| one_pet::server::configure(cfg, service))
            })
            .bind(&address)?;
            println!("glue listening on {}", server.addrs()[0]);
            server.run().await
        }),
    }
}
"#;

/// Builds the server of [`ONE_OPERATION`]'s generated crate (on the
/// runtime crate, optimized, in the workspace's target directory): its
/// binary.
fn glue_server(document: &Path) -> Result<PathBuf, String> {
    let root = project_root();
    let work = root.join("target").join("bench-glue");
    let options = apigen::standalone::Options {
        name: Some("one-pet".into()),
        server: true,
        runtime: apigen::standalone::RuntimeSource::Path(crate::runtime_crate()),
        ..Default::default()
    };
    crate::corpus::write_crate(document, &work.join("api"), &options)?;
    let manifest = r#"[package]
name = "glue-server"
version = "0.1.0"
edition = "2021"
publish = false

[dependencies]
one-pet = { path = "../api", features = ["server", "axum"] }
actix-web = { version = "4", default-features = false, features = ["macros"] }
axum = { version = "0.8", default-features = false, features = ["tokio", "http1"] }
tokio = { version = "1", default-features = false, features = ["rt-multi-thread", "net"] }
serde_json = "1"
"#;
    let files = [
        (
            "Cargo.toml",
            "[workspace]\nresolver = \"2\"\nmembers = [\"api\", \"server\"]\n".to_string(),
        ),
        ("server/Cargo.toml", manifest.to_string()),
        ("server/src/main.rs", GLUE_SERVER.to_string()),
    ];
    for (path, text) in files {
        let path = work.join(path);
        std::fs::create_dir_all(path.parent().unwrap_or(&work)).map_err(|e| e.to_string())?;
        std::fs::write(&path, text).map_err(|e| e.to_string())?;
    }
    std::fs::copy(root.join("Cargo.lock"), work.join("Cargo.lock")).map_err(|e| e.to_string())?;
    succeed(
        Command::new("cargo")
            .args(["build", "--release", "--quiet", "-p", "glue-server"])
            .current_dir(&work)
            .env("CARGO_TARGET_DIR", root.join("target")),
        "cargo build of the glue's server",
    )?;
    Ok(root.join("target/release/glue-server"))
}

/// The generated glue alone on each framework: [`ONE_OPERATION`]'s route
/// answering a fixed pet, against a bare route answering the same bytes
/// on the same framework; then its mock, optimized, answering its example
/// (`apigen mock --release`: what a client's load test meets).
fn glue(binaries: &Binaries, dir: &Path, options: &Options) -> Result<(), String> {
    let root = project_root();
    let document = dir.join("one-operation.yaml");
    std::fs::write(&document, ONE_OPERATION).map_err(|e| e.to_string())?;
    let glue_bin = glue_server(&document)?;
    crate::mock_conformance::prepare_cache()?;
    eprintln!("building the mock of one operation, optimized (the first time takes minutes)");
    let out = Command::new(root.join("target/release/apigen"))
        .env("CARGO_TARGET_DIR", root.join("target"))
        .arg("mock")
        .arg(&document)
        .args(["--cache", &root.join("target/mock").to_string_lossy()])
        .args(["--build-only", "--release", "--runtime-crate"])
        .arg(crate::runtime_crate())
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err("apigen mock --release failed".into());
    }
    let mock_bin = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    let endpoint = Endpoint {
        name: "GET /pets/{petId}",
        method: "GET",
        path: r#""/pets/" .. math.random(1, 200)"#,
        body: None,
        sample_path: "/pets/7".into(),
        sample_body: None,
    };
    let script = dir.join("glue.lua");
    std::fs::write(&script, lua(&endpoint, "unused")).map_err(|e| e.to_string())?;
    let mut rows = Vec::new();
    for (what, binary, args) in [
        ("the glue", &glue_bin, &["127.0.0.1:0"][..]),
        ("the mock", &mock_bin, &["127.0.0.1:0", "0"]),
    ] {
        for framework in ["actix", "axum"] {
            let server = launch(
                Command::new(binary)
                    .args(args)
                    .arg(framework)
                    .stderr(Stdio::null()),
            )?;
            let reply = sample(&server.address, &endpoint, "unused")?;
            let bare = bare(binaries, reply, framework, dir, None, Some("/pets/{petId}"))?;
            let (ours, theirs) = alternate(&server.address, &bare.address, &script, options)?;
            rows.push(row(&format!("{what} on {framework}"), &ours, &theirs));
        }
    }
    table(
        "One generated route (the glue answering a fixed pet; the mock answering its example) against a bare route of the same shape (`GET /pets/{petId}`, routed by the framework) on the same framework",
        "route",
        "bare",
        &rows,
    );
    Ok(())
}

/// Instructions per request under callgrind: the store on each framework
/// against the bare route on the same framework, and the store on axum
/// against the store on actix-web (both on one database and key). What a
/// timed load measures moves by more than some of the margins; the
/// instructions a request takes do not.
fn instructions(
    options: &Options,
    endpoints: &[Endpoint],
    dir: &Path,
    n: u32,
) -> Result<(), String> {
    let binaries = Binaries::of(options);
    let url = options
        .database_url
        .clone()
        .unwrap_or_else(|| format!("sqlite://{}", dir.join("bench.db").display()));
    let key = unlimited_key(&binaries.server, &url)?;
    let mut stores = Vec::new();
    for framework in ["actix", "axum"] {
        let counts = dir.join(format!("store-{framework}.callgrind"));
        let server = store(&binaries, &url, framework, Some(&counts))?;
        if stores.is_empty() {
            seed_pets(&server.address, &key, PETS)?;
        }
        let counted = Counted::new(server.id(), counts);
        stores.push((framework, server, counted));
    }
    println!(
        "\nInstructions per request under callgrind: {n} requests per endpoint on one connection, after {WARM_UP} not counted; user space of the whole process (every thread), the kernel's share not counted; release builds; the store on {}\n",
        if url.starts_with("sqlite:") { "SQLite" } else { "PostgreSQL" }
    );
    println!("| endpoint | store on actix | bare on actix | ratio | store on axum | bare on axum | ratio | actix store / axum store |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    for (index, endpoint) in endpoints.iter().enumerate() {
        let mut cells = Vec::new();
        let mut per_store = Vec::new();
        for (framework, server, counted) in &mut stores {
            let bare_counts = dir.join(format!("bare-{framework}-{index}.callgrind"));
            let reply = sample(&server.address, endpoint, &key)?;
            let bare = bare(&binaries, reply, framework, dir, Some(&bare_counts), None)?;
            let ours = counted.per_request(&server.address, endpoint, &key, n)?;
            let theirs = Counted::new(bare.id(), bare_counts).per_request(
                &bare.address,
                endpoint,
                &key,
                n,
            )?;
            cells.push(format!("{ours:.0} | {theirs:.0} | {:.2}", theirs / ours));
            per_store.push(ours);
        }
        println!(
            "| {} | {} | {:.2} |",
            endpoint.name,
            cells.join(" | "),
            per_store[0] / per_store[1]
        );
    }
    Ok(())
}

/// A key no load can exhaust (enterprise, a billion requests a minute and
/// a day), created on `url` by the server binary as an operator would.
pub fn unlimited_key(server_bin: &Path, url: &str) -> Result<String, String> {
    let out = Command::new(server_bin)
        .args([
            "--database-url",
            url,
            "keys",
            "create",
            "--plan",
            "enterprise",
        ])
        .args(["--per-minute", "1000000000", "--per-day", "1000000000"])
        .output()
        .map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!(
            "could not create a key: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}
