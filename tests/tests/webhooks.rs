//! Webhooks at both ends (the `hooks` snapshot): a sender generated from
//! the document delivers to a receiver generated from it, served on
//! actix-web and on axum. Signed deliveries are verified before the
//! handler runs; what is not believed is a 401 that never reaches it.

use petstore_tests::hooks::models::{BookingCreatedWebhookBody, Event, EventType};
use petstore_tests::hooks::runtime;
use petstore_tests::hooks::webhooks::{client::Client, operations::*, server};
use petstore_tests::Framework;
use std::sync::{Arc, Mutex};

/// A receiver that keeps what its handlers were given.
#[derive(Debug)]
struct Hook {
    secrets: Vec<runtime::WebhookSecret>,
    events: Mutex<Vec<(Event, Option<String>)>>,
    bookings: Mutex<Vec<String>>,
}

impl Hook {
    fn new(secrets: &[&str]) -> Arc<Self> {
        Arc::new(Hook {
            secrets: secrets
                .iter()
                .map(|s| runtime::WebhookSecret::parse(s).expect("a secret"))
                .collect(),
            events: Mutex::default(),
            bookings: Mutex::default(),
        })
    }

    fn events(&self) -> Vec<(Event, Option<String>)> {
        self.events.lock().unwrap().clone()
    }
}

impl Receiver for Hook {
    async fn booking_created(
        &self,
        request: BookingCreatedWebhookRequest,
        _context: runtime::RequestContext,
    ) -> Result<BookingCreatedWebhookResponse, ErrorResponse> {
        let id = request.body.map(|b| b.id).unwrap_or_default();
        self.bookings.lock().unwrap().push(id);
        Ok(BookingCreatedWebhookResponse::Ok)
    }

    async fn deliver_event(
        &self,
        request: DeliverEventWebhookRequest,
        context: runtime::RequestContext,
    ) -> Result<DeliverEventWebhookResponse, ErrorResponse> {
        let id = context
            .headers()
            .get(runtime::WEBHOOK_ID)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        self.events.lock().unwrap().push((request.body, id));
        Ok(DeliverEventWebhookResponse::NoContent)
    }
}

impl server::Rejections for Hook {
    fn reject(&self, rejection: runtime::Rejection) -> ErrorResponse {
        ErrorResponse::new(
            rejection.status(),
            serde_json::json!({ "message": rejection.to_string() }),
        )
    }
}

impl runtime::Signatures for Hook {
    fn webhook_secrets(&self) -> &[runtime::WebhookSecret] {
        &self.secrets
    }
}

const SECRET: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const OLD_SECRET: &str = "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD";

fn event(id: &str) -> Event {
    Event {
        id: id.to_string(),
        type_: EventType::OrderPlaced,
    }
}

fn secret(text: &str) -> runtime::WebhookSecret {
    runtime::WebhookSecret::parse(text).expect("a secret")
}

/// A delivery of `body` sent by hand to `url`, with these headers.
async fn post(url: &str, body: &str, headers: &[(&str, String)]) -> (u16, String) {
    let mut request = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .body(body.to_string());
    for (name, value) in headers {
        request = request.header(*name, value);
    }
    let response = request.send().await.expect("an answer");
    let status = response.status().as_u16();
    (status, response.text().await.unwrap_or_default())
}

fn now() -> i64 {
    chrono::Utc::now().timestamp()
}

#[actix_web::test]
async fn a_signed_delivery_from_the_generated_sender_reaches_the_handler_once() {
    for framework in Framework::ALL {
        eprintln!("on {framework:?}");
        let receiver = Hook::new(&[SECRET]);
        let base =
            petstore_tests::serve!(framework, petstore_tests::hooks::webhooks, receiver.clone());
        // The callback's URL expression is `{$request.body#/url}`: the
        // subscriber's URL is where it goes, whatever its path.
        let sender = Client::new(&format!("{base}/"))
            .unwrap()
            .signed(secret(SECRET), "msg_1");
        let reply = sender
            .deliver_event(DeliverEventWebhookRequest {
                body: event("evt_1"),
            })
            .await
            .expect("delivered");
        assert_eq!(*reply, DeliverEventWebhookResponse::NoContent);
        assert_eq!(
            receiver.events(),
            [(event("evt_1"), Some("msg_1".to_string()))]
        );
    }
}

#[actix_web::test]
async fn a_delivery_that_is_not_believed_is_refused_with_401_before_the_handler() {
    for framework in Framework::ALL {
        eprintln!("on {framework:?}");
        let receiver = Hook::new(&[SECRET]);
        let base =
            petstore_tests::serve!(framework, petstore_tests::hooks::webhooks, receiver.clone());
        let url = format!("{base}/");
        let body = r#"{"id":"evt_2","type":"order.placed"}"#;
        let signed = |key: &str, id: &str, at: i64, body: &str| {
            vec![
                (runtime::WEBHOOK_ID, id.to_string()),
                (runtime::WEBHOOK_TIMESTAMP, at.to_string()),
                (
                    runtime::WEBHOOK_SIGNATURE,
                    secret(key).sign(id, at, body.as_bytes()),
                ),
            ]
        };
        let refusals = [
            ("no signature at all", Vec::new(), "webhook-id"),
            (
                "another secret's signature",
                signed(OLD_SECRET, "msg_2", now(), body),
                "signature",
            ),
            (
                "a timestamp six minutes old",
                signed(SECRET, "msg_2", now() - 360, body),
                "old",
            ),
            (
                "a timestamp six minutes ahead",
                signed(SECRET, "msg_2", now() + 360, body),
                "future",
            ),
            (
                "a signature over another body",
                signed(
                    SECRET,
                    "msg_2",
                    now(),
                    r#"{"id":"evt_3","type":"order.placed"}"#,
                ),
                "signature",
            ),
        ];
        for (what, headers, says) in refusals {
            let (status, answer) = post(&url, body, &headers).await;
            assert_eq!(status, 401, "{what}: {answer}");
            assert!(answer.contains(says), "{what}: {answer}");
        }
        assert_eq!(receiver.events(), [], "no handler ran");
        // The same delivery, signed now with the secret, is believed.
        let (status, answer) = post(&url, body, &signed(SECRET, "msg_2", now(), body)).await;
        assert_eq!(status, 204, "{answer}");
        assert_eq!(receiver.events().len(), 1);
    }
}

#[actix_web::test]
async fn a_receiver_rotating_its_secret_believes_either() {
    for framework in Framework::ALL {
        let receiver = Hook::new(&[SECRET, OLD_SECRET]);
        let base =
            petstore_tests::serve!(framework, petstore_tests::hooks::webhooks, receiver.clone());
        for (key, id) in [(OLD_SECRET, "msg_old"), (SECRET, "msg_new")] {
            let sender = Client::new(&format!("{base}/"))
                .unwrap()
                .signed(secret(key), id);
            sender
                .deliver_event(DeliverEventWebhookRequest { body: event(id) })
                .await
                .expect("delivered");
        }
        let ids: Vec<Option<String>> = receiver.events().into_iter().map(|(_, id)| id).collect();
        assert_eq!(ids, [Some("msg_old".into()), Some("msg_new".into())]);
    }
}

#[actix_web::test]
async fn an_unsigned_webhook_is_validated_as_any_request() {
    for framework in Framework::ALL {
        let receiver = Hook::new(&[SECRET]);
        let base =
            petstore_tests::serve!(framework, petstore_tests::hooks::webhooks, receiver.clone());
        // `newBooking` says `x-webhook-signature: none`: no headers needed.
        let sender = Client::new(&base).unwrap();
        sender
            .booking_created(BookingCreatedWebhookRequest {
                body: Some(BookingCreatedWebhookBody { id: "bk_1".into() }),
            })
            .await
            .expect("delivered");
        // Its bounds hold on the way in as an operation's do.
        let (status, answer) = post(&format!("{base}/newBooking"), r#"{"id":"b"}"#, &[]).await;
        assert_eq!(status, 422, "{answer}");
        assert_eq!(*receiver.bookings.lock().unwrap(), ["bk_1"]);
    }
}
