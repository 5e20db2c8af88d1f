//! Server-sent events end to end, through the `events` snapshot's generated
//! server glue and client: typed events in order with their ids; a GET
//! stream that resumes with `Last-Event-ID` after the server ends a
//! connection, missing nothing and repeating nothing; a reconnect refused
//! with a declared status ends the stream with that typed response; one
//! status answered as JSON or as a stream, told apart by `Content-Type`.

use petstore_tests::events::{client::Client, models::*, operations::*, runtime, server};
use petstore_tests::Framework;
use runtime::StreamExt as _;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// The feed: events with ids `1..=total`, at most `per_connection` of them
/// per connection, and connections past `refuse_after` refused with a 429.
struct Service {
    total: u64,
    per_connection: usize,
    refuse_after: usize,
    connections: AtomicUsize,
    /// The `Last-Event-ID` each connection came with.
    resumed_from: std::sync::Mutex<Vec<Option<String>>>,
}

fn feed_event(id: u64) -> runtime::Event<FeedEvent> {
    let data = if id % 2 == 0 {
        FeedEvent::Restocked(Restocked {
            type_: "inventory.changed".into(),
            pet_id: id as i64,
            stock: 3,
        })
    } else {
        FeedEvent::Placed(Placed {
            type_: "order.placed".into(),
            order_id: id as i64,
        })
    };
    let kind = if id % 2 == 0 {
        "inventory.changed"
    } else {
        "order.placed"
    };
    runtime::Event::new(data)
        .with_id(id.to_string())
        .with_event(kind)
        // Reconnect at once: the test has no time to wait.
        .with_retry(Duration::from_millis(10))
}

impl Feed for Service {
    async fn watch_feed(
        &self,
        _request: WatchFeedRequest,
        context: runtime::RequestContext,
    ) -> Result<WatchFeedResponse, ErrorResponse> {
        let connection = self.connections.fetch_add(1, Ordering::SeqCst);
        let last: Option<String> = context
            .headers()
            .get("last-event-id")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        self.resumed_from.lock().unwrap().push(last.clone());
        if connection >= self.refuse_after {
            return Err(ErrorResponse::new(
                runtime::StatusCode::TOO_MANY_REQUESTS,
                Problem {
                    message: "too many streams".into(),
                },
            ));
        }
        let after: u64 = last.and_then(|l| l.parse().ok()).unwrap_or(0);
        let ids: Vec<u64> = (after + 1..=self.total).take(self.per_connection).collect();
        let events =
            runtime::EventStream::new(futures_util::stream::iter(ids.into_iter().map(feed_event)));
        Ok(WatchFeedResponse::Ok(events))
    }
}

impl Completions for Service {
    async fn complete(
        &self,
        request: CompleteRequest,
        _context: runtime::RequestContext,
    ) -> Result<CompleteResponse, ErrorResponse> {
        let words: Vec<String> = request.body.prompt.split(' ').map(str::to_string).collect();
        if request.body.stream == Some(true) {
            let events = words
                .into_iter()
                .map(|text| runtime::Event::new(Completion { text }));
            Ok(CompleteResponse::OkEvents {
                body: runtime::EventStream::new(futures_util::stream::iter(events)),
                x_request_id: Some("r-1".into()),
            })
        } else {
            Ok(CompleteResponse::Ok {
                body: Completion {
                    text: words.join(" "),
                },
                x_request_id: Some("r-1".into()),
            })
        }
    }
}

impl Chunks for Service {
    async fn stream_chunks(
        &self,
        _request: StreamChunksRequest,
        _context: runtime::RequestContext,
    ) -> Result<StreamChunksResponse, ErrorResponse> {
        let events = (1..=3).map(|n| {
            runtime::Event::new(StreamChunksOkEvent {
                text: format!("chunk {n}"),
            })
        });
        Ok(StreamChunksResponse::Ok(runtime::EventStream::new(
            futures_util::stream::iter(events),
        )))
    }
}

impl server::Rejections for Service {
    fn reject(&self, rejection: runtime::Rejection) -> ErrorResponse {
        ErrorResponse::new(
            rejection.status(),
            Problem {
                message: rejection.to_string(),
            },
        )
    }
}

/// The feed served on `framework`, and a client of it.
async fn serve(
    framework: Framework,
    total: u64,
    per_connection: usize,
    refuse_after: usize,
) -> (Client, Arc<Service>) {
    eprintln!("on {framework:?}");
    let service = Arc::new(Service {
        total,
        per_connection,
        refuse_after,
        connections: AtomicUsize::new(0),
        resumed_from: std::sync::Mutex::default(),
    });
    let base = petstore_tests::serve!(framework, petstore_tests::events, service.clone());
    let client = Client::new(&base).expect("a client");
    (client, service)
}

fn id_of(event: &FeedEvent) -> i64 {
    match event {
        FeedEvent::Placed(p) => p.order_id,
        FeedEvent::Restocked(r) => r.pet_id,
    }
}

#[actix_web::test]
async fn events_arrive_typed_with_their_ids_and_kinds() {
    for framework in Framework::ALL {
        let (client, _) = serve(framework, 4, 10, usize::MAX).await;
        let mut stream = client
            .watch_feed_events(WatchFeedRequest::default())
            .resume(false);
        let mut seen = Vec::new();
        while let Some(event) = stream.next().await {
            let event = event.expect("an event");
            assert_eq!(event.id, Some(id_of(&event.data).to_string()));
            let kind = match &event.data {
                FeedEvent::Placed(_) => "order.placed",
                FeedEvent::Restocked(_) => "inventory.changed",
            };
            assert_eq!(event.event.as_deref(), Some(kind));
            assert_eq!(event.retry, Some(Duration::from_millis(10)));
            seen.push(id_of(&event.data));
        }
        assert_eq!(seen, [1, 2, 3, 4]);
    }
}

#[actix_web::test]
async fn a_dropped_get_stream_resumes_after_the_last_id_without_gaps_or_repeats() {
    for framework in Framework::ALL {
        // Two events per connection: seven events take four connections.
        let (client, service) = serve(framework, 7, 2, usize::MAX).await;
        let stream = client.watch_feed_events(WatchFeedRequest::default());
        let seen: Vec<i64> = stream
            .take(7)
            .map(|event| id_of(&event.expect("an event").data))
            .collect()
            .await;
        assert_eq!(seen, [1, 2, 3, 4, 5, 6, 7]);
        let resumed = service.resumed_from.lock().unwrap().clone();
        assert_eq!(
            resumed[..4],
            [None, Some("2".into()), Some("4".into()), Some("6".into())]
        );
    }
}

#[actix_web::test]
async fn a_refused_reconnect_ends_the_stream_with_the_typed_response() {
    for framework in Framework::ALL {
        // One connection of two events, then every connection refused.
        let (client, _) = serve(framework, 5, 2, 1).await;
        let mut stream = client.watch_feed_events(WatchFeedRequest::default());
        for id in 1..=2 {
            assert_eq!(id_of(&stream.next().await.unwrap().unwrap().data), id);
        }
        match stream.next().await {
            Some(Err(runtime::StreamError::Answered(reply))) => {
                assert_eq!(reply.status, 429);
                match &reply.value {
                    WatchFeedResponse::TooManyRequests(problem) => {
                        assert_eq!(problem.message, "too many streams")
                    }
                    other => panic!("expected the 429 variant, got {other:?}"),
                }
            }
            other => panic!("expected the typed 429, got {other:?}"),
        }
        assert!(stream.next().await.is_none(), "the stream ends after it");
    }
}

#[actix_web::test]
async fn a_stream_that_will_not_resume_ends_with_its_connection() {
    for framework in Framework::ALL {
        let (client, service) = serve(framework, 7, 2, usize::MAX).await;
        let stream = client
            .watch_feed_events(WatchFeedRequest::default())
            .resume(false);
        let seen: Vec<_> = stream.collect().await;
        assert_eq!(seen.len(), 2);
        assert_eq!(service.connections.load(Ordering::SeqCst), 1);
    }
}

#[actix_web::test]
async fn one_status_answers_json_or_a_stream_by_content_type() {
    for framework in Framework::ALL {
        let (client, _) = serve(framework, 0, 0, usize::MAX).await;
        let request = |stream| CompleteRequest {
            body: CompleteBody {
                prompt: "one two three".into(),
                stream: Some(stream),
            },
        };
        let whole = client.complete(request(false)).await.expect("an answer");
        match whole.into_inner() {
            CompleteResponse::Ok { body, x_request_id } => {
                assert_eq!(body.text, "one two three");
                assert_eq!(x_request_id.as_deref(), Some("r-1"));
            }
            other => panic!("expected JSON, got {other:?}"),
        }
        let streamed = client.complete(request(true)).await.expect("an answer");
        let CompleteResponse::OkEvents { body, x_request_id } = streamed.into_inner() else {
            panic!("expected a stream");
        };
        assert_eq!(x_request_id.as_deref(), Some("r-1"));
        let words: Vec<String> = body.map(|e| e.expect("an event").data.text).collect().await;
        assert_eq!(words, ["one", "two", "three"]);
        // The `_events` method reads the same stream; a POST is not resent.
        let words: Vec<String> = client
            .complete_events(request(true))
            .map(|e| e.expect("an event").data.text)
            .collect()
            .await;
        assert_eq!(words, ["one", "two", "three"]);
    }
}

#[actix_web::test]
async fn a_schema_of_the_whole_event_types_its_data() {
    for framework in Framework::ALL {
        let (client, _) = serve(framework, 0, 0, usize::MAX).await;
        let reply = client
            .stream_chunks(StreamChunksRequest::default())
            .await
            .expect("an answer");
        assert_eq!(
            reply.headers["content-type"].to_str().unwrap(),
            "text/event-stream"
        );
        let StreamChunksResponse::Ok(events) = reply.into_inner();
        let texts: Vec<String> = events
            .map(|e| e.expect("an event").data.text)
            .collect()
            .await;
        assert_eq!(texts, ["chunk 1", "chunk 2", "chunk 3"]);
    }
}
