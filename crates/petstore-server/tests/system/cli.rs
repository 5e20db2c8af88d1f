//! The server's command line as a new user meets it: options checked before
//! anything touches the database, errors that name what is wrong, and key
//! management output that reads well.

use std::process::{Command, Output};

fn server(args: &[&str], dir: &std::path::Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_petstore-server"))
        .args(args)
        .current_dir(dir)
        .env("RUST_LOG", "warn")
        .output()
        .expect("the binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn a_wrong_listen_address_is_refused_before_the_database_is_touched() {
    let dir = tempfile::tempdir().unwrap();
    let out = server(
        &[
            "--listen",
            "nonsense",
            "--database-url",
            "sqlite://store.db",
        ],
        dir.path(),
    );
    assert!(!out.status.success());
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("`nonsense` is not an address to listen on"),
        "{stderr}"
    );
    assert!(
        !dir.path().join("store.db").exists(),
        "no database was created"
    );
    assert!(!text(&out.stdout).contains("psk_"), "no key was printed");
}

#[test]
fn an_address_in_use_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = taken.local_addr().unwrap().to_string();
    let out = server(
        &["--listen", &address, "--database-url", "sqlite://store.db"],
        dir.path(),
    );
    assert!(!out.status.success());
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(&format!("cannot listen on {address}: ")),
        "{stderr}"
    );
    assert!(!dir.path().join("store.db").exists());
}

#[test]
fn keys_list_prints_seconds_in_utc_in_aligned_columns() {
    let dir = tempfile::tempdir().unwrap();
    let db = ["--database-url", "sqlite://store.db"];
    for (plan, name) in [("free", "first"), ("enterprise", "second")] {
        let mut args = db.to_vec();
        args.extend(["keys", "create", "--plan", plan, "--name", name]);
        if plan == "enterprise" {
            args.extend(["--per-minute", "1000", "--per-day", "100000"]);
        }
        let out = server(&args, dir.path());
        assert!(out.status.success(), "{}", text(&out.stderr));
    }
    let mut args = db.to_vec();
    args.extend(["keys", "list"]);
    let out = server(&args, dir.path());
    let listed = text(&out.stdout);
    let lines: Vec<&str> = listed.lines().collect();
    assert_eq!(lines.len(), 3, "{listed}");
    let created = lines[0].find("CREATED").unwrap();
    let state = lines[0].find("STATE").unwrap();
    for line in &lines[1..] {
        let stamp = &line[created..created + 20];
        assert!(
            stamp.len() == 20
                && stamp.ends_with('Z')
                && chrono::DateTime::parse_from_rfc3339(stamp).is_ok(),
            "`{stamp}` in {line}"
        );
        // The next column starts where its header does.
        assert_eq!(&line[state..state + 6], "active", "{listed}");
    }
}

#[test]
fn revoking_an_unknown_key_says_which_exist() {
    let dir = tempfile::tempdir().unwrap();
    let db = ["--database-url", "sqlite://store.db"];
    let revoke = |id: &str| {
        let mut args = db.to_vec();
        args.extend(["keys", "revoke", id]);
        server(&args, dir.path())
    };
    let out = revoke("7");
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains(
            "there are no active keys (`petstore-server keys create --plan free` makes one)"
        ),
        "{}",
        text(&out.stderr)
    );
    for _ in 0..2 {
        let mut args = db.to_vec();
        args.extend(["keys", "create", "--plan", "free"]);
        assert!(server(&args, dir.path()).status.success());
    }
    assert!(revoke("1").status.success());
    let out = revoke("1");
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains(
            "no active key with id 1; active keys: 2 (`petstore-server keys list` shows them)"
        ),
        "{}",
        text(&out.stderr)
    );
}

/// The address `--metrics-listen` got (port 0 here) is printed with the
/// server's, and serves the metrics of the requests made.
#[actix_web::test]
async fn the_metrics_address_is_printed_and_serves_metrics() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("store.db").display());
    let (server, key) =
        crate::helpers::Server::start_with(&url, &["--metrics-listen", "127.0.0.1:0"]);
    let metrics = server
        .metrics
        .clone()
        .expect("the metrics address is printed");
    let client = reqwest::Client::new();
    let listed = client
        .get(format!("{}/v1/pets", server.base))
        .bearer_auth(key.unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(listed.status(), 200);
    let scraped = client.get(&metrics).send().await.unwrap();
    assert_eq!(scraped.status(), 200, "{metrics}");
    let text = scraped.text().await.unwrap();
    assert!(
        text.contains("petstore_requests_total{operation=\"listPets\""),
        "{text}"
    );
}
