//! The server process's end: SIGTERM with streams open.

use crate::helpers::{create_key, Server};
use reqwest::StatusCode;
use std::time::Duration;

/// SIGTERM ends open streams cleanly (the chunked body's end, no reset)
/// and the server exits promptly, not after its 30 s grace period.
#[actix_web::test]
async fn sigterm_ends_streams_cleanly_and_the_server_exits() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("petstore.db").display());
    let key = create_key(&url, "pro", None);
    let (mut server, _) = Server::start(&url);
    let mut stream = reqwest::Client::new()
        .get(format!("{}/v1/store/events", server.base))
        .bearer_auth(&key)
        .send()
        .await
        .unwrap();
    assert_eq!(stream.status(), StatusCode::OK);
    let exited = tokio::task::spawn_blocking(move || server.terminate(Duration::from_secs(10)));
    let ended = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            match stream.chunk().await {
                Ok(Some(_)) => continue,
                other => return other.map(|_| ()),
            }
        }
    })
    .await
    .expect("the stream ends within 10 s");
    assert!(ended.is_ok(), "the stream ends cleanly, not with {ended:?}");
    assert_eq!(
        exited.await.unwrap(),
        Some(true),
        "the server exits, successfully, within 10 s"
    );
}
