//! The reference page at `/docs`, in a real browser: headless Chromium (from
//! Debian's `chromium` package), driven over the DevTools protocol. The page
//! is checked by running JavaScript in it, as a person's clicks would.
//!
//! Skipped, saying so, when no Chromium is installed, unless
//! `PETSTORE_REQUIRE_BROWSER` is set (`.ci/run` installs Chromium and sets
//! it, so CI cannot pass by skipping).

use crate::helpers::{read, Server};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A headless Chromium and one page of it, killed when dropped.
struct Browser {
    child: Child,
    socket: tungstenite::WebSocket<tungstenite::stream::MaybeTlsStream<TcpStream>>,
    next_id: u64,
    _profile: tempfile::TempDir,
}

fn chromium() -> Option<&'static str> {
    let found = ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|name| {
            Command::new(name)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        });
    if found.is_none() {
        assert!(
            std::env::var_os("PETSTORE_REQUIRE_BROWSER").is_none(),
            "PETSTORE_REQUIRE_BROWSER is set and no Chromium is installed"
        );
        eprintln!("skipped: no Chromium on this machine (apt-get install chromium)");
    }
    found
}

impl Browser {
    fn launch(program: &str) -> Browser {
        let profile = tempfile::tempdir().unwrap();
        let mut child = Command::new(program)
            .args([
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--no-first-run",
                "--remote-debugging-port=0",
                "--window-size=1280,900",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg("about:blank")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("chromium starts");
        // It says where its DevTools listen on stderr.
        let mut stderr = BufReader::new(child.stderr.take().unwrap());
        let mut line = String::new();
        let port = loop {
            line.clear();
            assert!(stderr.read_line(&mut line).unwrap() > 0, "chromium exited");
            if let Some(rest) = line
                .trim()
                .strip_prefix("DevTools listening on ws://127.0.0.1:")
            {
                break rest.split('/').next().unwrap().to_string();
            }
        };
        std::thread::spawn(move || {
            // Keep draining its stderr so that it never blocks on it.
            let mut sink = String::new();
            let _ = stderr.read_to_string(&mut sink);
        });
        let target = http_put(&port, "/json/new?about:blank");
        let url = target["webSocketDebuggerUrl"].as_str().unwrap().to_string();
        let (socket, _) = tungstenite::connect(url).expect("the page's DevTools socket");
        let stream = match socket.get_ref() {
            tungstenite::stream::MaybeTlsStream::Plain(s) => s,
            _ => unreachable!("a local socket is plain"),
        };
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        let mut browser = Browser {
            child,
            socket,
            next_id: 0,
            _profile: profile,
        };
        browser.call("Page.enable", json!({}));
        browser
    }

    /// Sends a DevTools command and waits for its result.
    fn call(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let message = json!({ "id": id, "method": method, "params": params });
        self.socket
            .send(tungstenite::Message::text(message.to_string()))
            .unwrap();
        loop {
            let reply = self.socket.read().expect("a DevTools message");
            let Ok(text) = reply.to_text() else { continue };
            let value: Value = serde_json::from_str(text).unwrap();
            if value["id"] == id {
                assert!(value.get("error").is_none(), "{method}: {value}");
                return value["result"].clone();
            }
        }
    }

    /// Evaluates JavaScript in the page (awaiting a promise) and returns
    /// its value.
    fn eval(&mut self, expression: &str) -> Value {
        let result = self.call(
            "Runtime.evaluate",
            json!({ "expression": expression, "returnByValue": true, "awaitPromise": true }),
        );
        assert!(
            result.get("exceptionDetails").is_none(),
            "{expression}: {result}"
        );
        result["result"]["value"].clone()
    }

    /// Loads `url` and waits until the page is complete.
    fn open(&mut self, url: &str) {
        self.call("Page.navigate", json!({ "url": url }));
        self.wait("document.readyState === 'complete' && location.href !== 'about:blank'");
    }

    /// Presses and releases a key (`Tab`, `Enter`) as a keyboard would.
    fn press(&mut self, key: &str) {
        let (code, text) = match key {
            "Tab" => (9, ""),
            "Enter" => (13, "\r"),
            other => panic!("no key code for {other}"),
        };
        for kind in ["keyDown", "keyUp"] {
            let text = if kind == "keyDown" { text } else { "" };
            self.call(
                "Input.dispatchKeyEvent",
                json!({ "type": kind, "key": key, "code": key, "windowsVirtualKeyCode": code, "text": text }),
            );
        }
    }

    /// Types text into whatever has the focus.
    fn type_text(&mut self, text: &str) {
        self.call("Input.insertText", json!({ "text": text }));
    }

    /// Waits until `condition` holds in the page.
    fn wait(&mut self, condition: &str) {
        let deadline = Instant::now() + Duration::from_secs(20);
        while self.eval(&format!("!!({condition})")) != json!(true) {
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {condition}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `PUT path` on the DevTools HTTP endpoint; the JSON it answers.
fn http_put(port: &str, path: &str) -> Value {
    let mut stream = TcpStream::connect(format!("127.0.0.1:{port}")).unwrap();
    write!(
        stream,
        "PUT {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    // Chromium keeps the connection open whatever the request says, so the
    // body is read by its length, not to the end of the stream.
    let mut reader = BufReader::new(stream);
    let mut length = 0;
    let mut line = String::new();
    while reader.read_line(&mut line).unwrap() > 2 {
        if let Some((name, value)) = line.split_once(':') {
            if name.eq_ignore_ascii_case("content-length") {
                length = value.trim().parse().unwrap();
            }
        }
        line.clear();
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).unwrap();
    serde_json::from_slice(&body).unwrap()
}

fn start() -> Option<(Server, String, Browser)> {
    let program = chromium()?;
    let dir = tempfile::tempdir().unwrap().keep();
    let url = format!("sqlite://{}", dir.join("docs.db").display());
    let (server, key) = Server::start(&url);
    Some((server, key.unwrap(), Browser::launch(program)))
}

#[actix_web::test]
async fn docs_are_served_without_a_key_and_revalidated_by_etag() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("docs.db").display());
    let (server, _) = Server::start(&url);
    let client = reqwest::Client::new();
    let page = client
        .get(format!("{}/docs", server.base))
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), 200);
    let etag = page.headers()["etag"].to_str().unwrap().to_string();
    assert_eq!(page.headers()["cache-control"], "no-cache");
    // Only the page's own style and script may run, named by their hashes.
    let policy = page.headers()["content-security-policy"].to_str().unwrap();
    assert!(!policy.contains("unsafe-inline"), "{policy}");
    assert_eq!(policy.matches("'sha256-").count(), 2, "{policy}");
    assert!(page.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/html"));
    let body = read(page).await.body;
    let html = body.as_str().unwrap();
    assert!(html.len() < 200_000, "the page is {} bytes", html.len());
    // Nothing loaded from elsewhere: no attribute, style or script names a
    // remote URL (the spec's own examples, `https://shop.example.com/...`,
    // are text).
    for remote in [
        "src=\"http",
        "href=\"http",
        "url(http",
        "url('http",
        "url(\"http",
        "@import",
        "fetch('http",
        "fetch(\"http",
    ] {
        let outside = html
            .match_indices(remote)
            .filter(|(i, m)| {
                let url = i + m.find("http").unwrap_or(0);
                !html[url..].starts_with("http://localhost")
            })
            .count();
        assert_eq!(outside, 0, "{remote} in the page");
    }
    let again = client
        .get(format!("{}/docs", server.base))
        .header("If-None-Match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), 304);
    assert_eq!(again.headers()["etag"].to_str().unwrap(), etag);
}

#[actix_web::test]
async fn the_reference_page_works_in_a_browser() {
    let Some((server, key, mut browser)) = start() else {
        return;
    };
    browser.open(&format!("{}/docs", server.base));

    // Every operation of the spec is there, once.
    let ids = browser.eval(
        "Array.from(document.querySelectorAll('section.operation')).map(s => s.id.replace('operation/', ''))",
    );
    let mut ids: Vec<String> = serde_json::from_value(ids).unwrap();
    ids.sort();
    let mut expected: Vec<String> = petstore_api::metadata::OPERATIONS
        .iter()
        .map(|op| op.id.to_string())
        .collect();
    expected.sort();
    assert_eq!(ids, expected);
    assert_eq!(ids.len(), 23);
    // The markup parsed as it was written: a block inside a paragraph
    // would close it early and leave an empty one behind.
    assert_eq!(
        browser.eval("document.querySelectorAll('p:empty').length"),
        0
    );

    // The lifecycle: getPet is deprecated with a sunset and a successor;
    // beta operations wear their badge.
    let notice = browser
        .eval("document.getElementById('operation/getPet').querySelector('.notice').textContent");
    let notice = notice.as_str().unwrap();
    assert!(notice.contains("Deprecated since 2026-11-01"), "{notice}");
    assert!(notice.contains("Sunset on 2030-12-05"), "{notice}");
    assert_eq!(
        browser.eval("getComputedStyle(document.querySelector('#operation\\\\/getPet h2')).textDecorationLine"),
        "line-through"
    );
    let beta = browser.eval(
        "Array.from(document.querySelectorAll('.badge.beta')).map(b => b.closest('section').id)",
    );
    assert!(!beta.as_array().unwrap().is_empty(), "{beta}");
    let plans = browser.eval("document.querySelector('#overview table').textContent");
    assert!(plans.as_str().unwrap().contains("enterprise"), "{plans}");

    // Search filters operations and the sidebar by id, path or summary.
    browser.eval(
        "(() => { const s = document.getElementById('search'); s.value = 'orders'; s.dispatchEvent(new Event('input')); })()",
    );
    let shown = browser.eval(
        "Array.from(document.querySelectorAll('section.operation')).filter(s => !s.hidden).map(s => s.dataset.search)",
    );
    let shown: Vec<String> = serde_json::from_value(shown).unwrap();
    assert!(!shown.is_empty() && shown.len() < 17, "{shown:?}");
    assert!(shown.iter().all(|s| s.contains("orders")), "{shown:?}");
    browser.eval(
        "(() => { const s = document.getElementById('search'); s.value = ''; s.dispatchEvent(new Event('input')); })()",
    );

    // No try-it panel where the spec says so.
    assert_eq!(
        browser.eval(
            "document.getElementById('operation/deletePet').querySelectorAll('details.try').length"
        ),
        0
    );

    // Try it: a call to the running server, with the key from the page.
    browser.eval(&format!(
        "(() => {{ document.getElementById('api-key').value = {key:?};
            const op = document.getElementById('operation/listPets');
            op.querySelector('details.try').open = true;
            op.querySelector('form.tryit').requestSubmit(); }})()"
    ));
    browser.wait("document.getElementById('operation/listPets').querySelector('.result .status')");
    let status = browser.eval(
        "document.getElementById('operation/listPets').querySelector('.result .status').textContent",
    );
    assert!(status.as_str().unwrap().starts_with("200"), "{status}");
    let limited = browser.eval(
        "Array.from(document.getElementById('operation/listPets').querySelectorAll('.result li.ratelimit')).map(l => l.textContent)",
    );
    assert!(
        limited
            .as_array()
            .unwrap()
            .iter()
            .any(|l| l.as_str().unwrap().starts_with("x-ratelimit-remaining: ")),
        "{limited}"
    );

    // A reference expands in place, on demand.
    browser.eval(
        "document.getElementById('operation/createPet').querySelector('details.ref').open = true",
    );
    browser.wait(
        "document.getElementById('operation/createPet').querySelector('details.ref .schema-body')",
    );

    // A deep link lands on its operation.
    browser.open(&format!("{}/docs#operation/placeOrder", server.base));
    // It lands below the sticky header, not behind it, and its heading has
    // the keyboard focus.
    browser.wait(
        "(() => { const r = document.getElementById('operation/placeOrder').getBoundingClientRect();
                  const h = document.querySelector('header').getBoundingClientRect();
                  return r.top >= h.bottom - 1 && r.top < innerHeight / 2; })()",
    );
    assert_eq!(
        browser.eval("document.activeElement.closest('section').id"),
        "operation/placeOrder"
    );
}

#[actix_web::test]
async fn the_page_works_from_the_keyboard() {
    let Some(program) = chromium() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("docs.html");
    std::fs::write(&file, petstore_api::DOCS_HTML).unwrap();
    let mut browser = Browser::launch(program);
    browser.open(&format!("file://{}", file.display()));
    let focused = "document.activeElement.id || document.activeElement.className";

    // The first Tab reaches the skip link; Enter on it moves to the content.
    // Focus moves when the browser has handled the key, which a loaded
    // machine can delay past the call that sends it: each step waits for
    // where the focus must end up (and fails after 20 s if it never does).
    browser.press("Tab");
    browser.wait(&format!("({focused}) === 'skip'"));
    browser.press("Enter");
    browser.wait("document.activeElement.id === 'main'");

    // Back at the top, the search box is next: typing in it filters.
    browser.eval("document.querySelector('a.skip').focus()");
    browser.wait(&format!("({focused}) === 'skip'"));
    browser.press("Tab");
    browser.wait(&format!("({focused}) === 'search'"));
    browser.type_text("placeorder");
    let shown = "Array.from(document.querySelectorAll('section.operation')).filter(s => !s.hidden).map(s => s.id).join()";
    browser.wait(&format!("({shown}) === 'operation/placeOrder'"));

    // On a try-it panel's summary, Enter opens it and Tab goes into its form.
    browser.eval("document.getElementById('operation/placeOrder').querySelector('details.try summary').focus()");
    browser.press("Enter");
    browser
        .wait("document.getElementById('operation/placeOrder').querySelector('details.try').open");
    browser.press("Tab");
    browser.wait("document.activeElement.closest('form.tryit') !== null");
}

/// The reference page the generator makes of `spec`, opened from a file
/// (kept while the directory lives).
fn open_page_of(program: &str, spec: &str) -> (Browser, tempfile::TempDir) {
    let config = apigen::Config {
        command: "test".into(),
        source: "test.yaml".into(),
        ..Default::default()
    };
    let page = apigen::generate("test.yaml", spec, &config)
        .unwrap_or_else(|d| panic!("{d}"))
        .files["docs.html"]
        .clone();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("docs.html");
    std::fs::write(&file, page).unwrap();
    let mut browser = Browser::launch(program);
    browser.open(&format!("file://{}", file.display()));
    (browser, dir)
}

#[actix_web::test]
async fn a_passed_sunset_says_so_and_links_the_successor() {
    let Some(program) = chromium() else {
        return;
    };
    let spec = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../apigen/tests/snapshots/lifecycle.yaml"),
    )
    .unwrap();
    let (mut browser, _dir) = open_page_of(program, &spec);
    // Its sunsets (2026-01-01, 2025-06-30) are behind the viewer's date;
    // the page compares with the browser's clock, as a reader's would.
    let passed = browser.eval("new Date().toISOString().slice(0, 10) >= '2026-01-01'");
    let notice = browser.eval(
        "document.getElementById('operation/oldWidgets').querySelector('.notice').textContent",
    );
    let notice = notice.as_str().unwrap();
    if passed == true {
        assert!(notice.contains("Sunset passed on 2026-01-01"), "{notice}");
        assert_eq!(
            browser.eval("document.getElementById('operation/oldWidgets').querySelector('.notice').classList.contains('passed')"),
            true
        );
    }
    assert!(notice.contains("Deprecated since 2025-01-01"), "{notice}");
    // The successor link leads to its operation.
    browser
        .eval("document.getElementById('operation/oldWidgets').querySelector('.notice a').click()");
    browser.wait("location.hash === '#operation/listWidgets'");
    // Experimental and alpha operations wear their badges.
    let badges = browser.eval(
        "Array.from(document.querySelectorAll('.badge.experimental, .badge.alpha')).map(b => b.textContent)",
    );
    assert_eq!(badges, json!(["experimental", "alpha"]));
}

/// Try it on a stream of events: what arrives is shown as it arrives,
/// with a Stop button until the stream ends.
#[actix_web::test]
async fn try_it_follows_a_stream_of_events_as_it_arrives() {
    let Some(program) = chromium() else {
        return;
    };
    let spec = r#"
openapi: 3.0.3
info: {title: Feed, version: '1'}
paths:
  /feed:
    get:
      operationId: watchFeed
      responses:
        '200':
          description: Events.
          content:
            text/event-stream:
              schema: {type: object, properties: {n: {type: integer}}}
"#;
    let (mut browser, _dir) = open_page_of(program, spec);
    // A server whose stream the test writes to.
    browser.eval(
        "window.fetch = (url, init) => Promise.resolve(new Response(
           new ReadableStream({ start(c) { window.feed = c; } }),
           { status: 200, headers: { 'Content-Type': 'text/event-stream' } }))",
    );
    browser.eval(
        "document.getElementById('operation/watchFeed').querySelector('form.tryit').requestSubmit()",
    );
    let result = "document.getElementById('operation/watchFeed').querySelector('.result')";
    browser.wait(&format!("{result}.querySelector('button.stop')"));
    browser.eval("window.feed.enqueue(new TextEncoder().encode('id: 1\\ndata: {\"n\":1}\\n\\n'))");
    browser.wait(&format!(
        "{result}.querySelector('pre').textContent.includes('\"n\":1')"
    ));
    browser.eval("window.feed.enqueue(new TextEncoder().encode('id: 2\\ndata: {\"n\":2}\\n\\n'))");
    browser.wait(&format!(
        "{result}.querySelector('pre').textContent.includes('\"n\":2')"
    ));
    let shown = browser.eval(&format!("{result}.querySelector('pre').textContent"));
    assert!(
        shown.as_str().unwrap().starts_with("id: 1\ndata:"),
        "{shown}"
    );
    // The stream's end takes the Stop button away.
    browser.eval("window.feed.close()");
    browser.wait(&format!("!{result}.querySelector('button.stop')"));
}

/// What the try-it panel sends, seen by a stand-in for `fetch`: parameters
/// where and how the operation declares them, the key as a bearer token,
/// a form body encoded as a form.
#[actix_web::test]
async fn try_it_sends_what_the_operation_declares() {
    let Some(program) = chromium() else {
        return;
    };
    let spec = r#"
openapi: 3.0.3
info: {title: Things, version: '1'}
servers:
  - url: 'https://{region}.example.com/api/'
    variables: {region: {default: eu, enum: [eu, us]}}
  - url: /api
paths:
  /things/{id}:
    post:
      operationId: updateThing
      parameters:
        - {name: id, in: path, required: true, schema: {type: integer}}
        - {name: tag, in: query, schema: {type: array, items: {type: string}}}
        - {name: X-Trace, in: header, schema: {type: string}}
      requestBody:
        content:
          application/x-www-form-urlencoded:
            schema:
              type: object
              required: [name, sizes, meta]
              properties:
                name: {type: string, example: Rex & co}
                sizes: {type: array, items: {type: integer}, example: [1, 2]}
                meta: {type: object, properties: {color: {type: string}}, example: {color: red}}
      responses: {'204': {description: done}}
"#;
    let (mut browser, _dir) = open_page_of(program, spec);
    browser.eval(
        "window.sent = [];
         window.fetch = (url, init) => {
           window.sent.push({ url, method: init.method, headers: init.headers, body: init.body });
           return Promise.resolve(new Response(null, { status: 204, headers: { 'X-RateLimit-Remaining': '9' } }));
         }",
    );
    browser.eval(
        "(() => { document.getElementById('api-key').value = 'psk_test';
            const form = document.getElementById('operation/updateThing').querySelector('form.tryit');
            form.querySelector('input[name=id]').value = '7';
            form.querySelector('input[name=tag]').value = 'a b,c';
            form.querySelector('input[name=X-Trace]').value = 't-1';
            form.requestSubmit(); })()",
    );
    browser.wait("window.sent.length === 1 && document.getElementById('operation/updateThing').querySelector('.result .status')");
    let sent = browser.eval("window.sent[0]");
    // Opened from a file, the page has no server of its own: it calls the
    // spec's first absolute one.
    assert_eq!(
        sent["url"], "https://eu.example.com/api/things/7?tag=a%20b&tag=c",
        "{sent}"
    );
    assert_eq!(sent["method"], "POST");
    assert_eq!(sent["headers"]["Authorization"], "Bearer psk_test");
    assert_eq!(sent["headers"]["X-Trace"], "t-1");
    assert_eq!(
        sent["headers"]["Content-Type"],
        "application/x-www-form-urlencoded"
    );
    assert_eq!(
        sent["body"], "meta%5Bcolor%5D=red&name=Rex+%26+co&sizes=1&sizes=2",
        "{sent}"
    );
    let shown = browser.eval(
        "document.getElementById('operation/updateThing').querySelector('.result').textContent",
    );
    assert!(shown.as_str().unwrap().starts_with("204"), "{shown}");
    assert_eq!(
        browser.eval("document.querySelector('.result li.ratelimit').textContent"),
        "x-ratelimit-remaining: 9"
    );

    // "This page's server" sends to the base path on the page's origin.
    browser.eval(
        "(() => { document.getElementById('server').selectedIndex = 0;
            document.getElementById('operation/updateThing').querySelector('form.tryit').requestSubmit(); })()",
    );
    browser.wait("window.sent.length === 2");
    assert_eq!(
        browser.eval("window.sent[1].url"),
        "/api/things/7?tag=a%20b&tag=c"
    );
}

#[actix_web::test]
async fn script_in_a_description_stays_text() {
    let Some(program) = chromium() else {
        return;
    };
    let spec = "openapi: 3.0.3\ninfo:\n  title: Hostile\n  version: '1'\n  description: 'Hello <script>window.pwned = 1</script> <img src=x onerror=\"window.pwned = 2\">'\npaths:\n  /a:\n    get:\n      operationId: getA\n      description: '<script>window.pwned = 3</script>'\n      responses: {'204': {description: '<b onmouseover=\"x()\">no</b>'}}\n";
    let (mut browser, _dir) = open_page_of(program, spec);
    assert_eq!(browser.eval("window.pwned === undefined"), true);
    let text = browser.eval("document.getElementById('overview').textContent");
    assert!(
        text.as_str()
            .unwrap()
            .contains("<script>window.pwned = 1</script>"),
        "{text}"
    );
    assert_eq!(
        browser.eval("document.querySelectorAll('script').length"),
        1,
        "only the page's own script"
    );
}

/// Figures, not a check: how long Chromium takes over the reference pages
/// in `PAGES` (comma-separated paths; generate one with `cargo xtask
/// codegen --spec DOC --out DIR`), beside the pet store's page measured in
/// the same run. Prints first paint, DOM ready, load, the element count, a
/// search and its clearing, and opening the first reference.
#[actix_web::test]
#[ignore = "a measurement: PAGES=a.html,b.html cargo test -p petstore-server --test system page_load_figures -- --ignored --nocapture"]
async fn page_load_figures() {
    let program = chromium().expect("Chromium is installed");
    let dir = tempfile::tempdir().unwrap();
    let ours = dir.path().join("petstore.html");
    std::fs::write(&ours, petstore_api::DOCS_HTML).unwrap();
    let others = std::env::var("PAGES").unwrap_or_default();
    let pages = std::iter::once(ours.display().to_string()).chain(
        others
            .split(',')
            .filter(|p| !p.is_empty())
            .map(str::to_string),
    );
    println!("page: first paint, DOM ready, load (ms); elements; search, clear (ms); open a reference (ms)");
    for page in pages {
        let mut browser = Browser::launch(program);
        browser.open(&format!("file://{page}"));
        browser.wait("performance.getEntriesByType('paint').length > 0");
        let load = browser.eval(
            "(() => { const n = performance.getEntriesByType('navigation')[0];
                      const paint = performance.getEntriesByType('paint')[0];
                      return [Math.round(paint ? paint.startTime : -1), Math.round(n.domInteractive),
                              Math.round(n.loadEventEnd), document.querySelectorAll('*').length]; })()",
        );
        let search = browser.eval(
            "(() => { const s = document.getElementById('search');
                      const t0 = performance.now();
                      s.value = 'customer'; s.dispatchEvent(new Event('input')); document.body.offsetHeight;
                      const t1 = performance.now();
                      s.value = ''; s.dispatchEvent(new Event('input')); document.body.offsetHeight;
                      return [Math.round(t1 - t0), Math.round(performance.now() - t1)]; })()",
        );
        let open = browser.eval(
            "new Promise(done => { const t0 = performance.now();
                 const d = document.querySelector('details.ref'); if (!d) { done(-1); return; }
                 d.open = true;
                 setTimeout(() => { document.body.offsetHeight; done(Math.round(performance.now() - t0)); }, 0); })",
        );
        println!("{page}: {load} {search} {open}");
    }
}
