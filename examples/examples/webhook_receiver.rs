//! A webhook receiver: the pet store's events pushed to this program, each
//! printed once its signature is verified. The receiver is generated from
//! the store's spec (`petstore_api::webhooks`, served here on axum): its
//! glue checks the Standard Webhooks signature and timestamp before the
//! handler below runs, and answers 401 to anything else.
//!
//! ```text
//! cargo run -p petstore-server -- --webhooks-allow-private   # prints an API key on first start
//! # subscribe a URL (the answer shows the endpoint's secret, this once):
//! curl -H "Authorization: Bearer psk_..." -H 'content-type: application/json' \
//!      -d '{"url": "http://127.0.0.1:9000/", "events": ["order.placed"]}' \
//!      http://127.0.0.1:8080/v1/webhooks
//! cargo run -p petstore-examples --example webhook_receiver -- --listen 127.0.0.1:9000 --secret whsec_...
//! ```
//!
//! Or let it subscribe itself: `--subscribe` creates an endpoint for its own
//! address with `PETSTORE_KEY` (at `PETSTORE_URL`, default
//! `http://127.0.0.1:8080/v1`), for every event type, and deletes it when
//! the program ends. `--count N` ends it after N events. The store's
//! `--webhooks-allow-private` lets it deliver to a loopback address.

use petstore_api::client::Client;
use petstore_api::models::{NewWebhookEndpoint, StoreEvent, StoreEventType};
use petstore_api::operations::{CreateWebhookRequest, CreateWebhookResponse, DeleteWebhookRequest};
use petstore_api::runtime::{self, WebhookSecret};
use petstore_api::webhooks::operations::{
    DeliverStoreEventWebhookRequest, DeliverStoreEventWebhookResponse, ErrorResponse, Receiver,
};
use std::collections::HashSet;
use std::sync::{Arc, Mutex};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// Prints each event delivered, once: a repeat (the store retries until
/// it hears a 2xx) is recognised by its `webhook-id`.
#[derive(Debug)]
struct Printer {
    secrets: Vec<WebhookSecret>,
    seen: Mutex<HashSet<String>>,
    /// Told of each new event, for `--count`.
    printed: tokio::sync::mpsc::UnboundedSender<()>,
}

impl Receiver for Printer {
    async fn deliver_store_event(
        &self,
        request: DeliverStoreEventWebhookRequest,
        context: runtime::RequestContext,
    ) -> std::result::Result<DeliverStoreEventWebhookResponse, ErrorResponse> {
        let id = context
            .headers()
            .get(runtime::WEBHOOK_ID)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_string();
        let first = self
            .seen
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(id.clone());
        if first {
            println!("{}", describe(&request.body));
            let _ = self.printed.send(());
        } else {
            println!("(delivery {id} again: already printed)");
        }
        Ok(DeliverStoreEventWebhookResponse::Success {
            status: runtime::StatusCode::NO_CONTENT,
        })
    }
}

impl petstore_api::webhooks::axum::Rejections for Printer {
    fn reject(&self, rejection: runtime::Rejection) -> ErrorResponse {
        eprintln!("refused a delivery: {rejection}");
        ErrorResponse::new(
            rejection.status(),
            serde_json::json!({ "message": rejection.message }),
        )
    }
}

impl runtime::Signatures for Printer {
    fn webhook_secrets(&self) -> &[WebhookSecret] {
        &self.secrets
    }
}

fn describe(event: &StoreEvent) -> String {
    match event {
        StoreEvent::OrderEvent(e) => format!(
            "event {} {}: order {}, pet {}, quantity {}, stock now {}",
            e.id, e.type_, e.order_id, e.pet_id, e.quantity, e.stock
        ),
        StoreEvent::InventoryEvent(e) => format!(
            "event {} {}: pet {}, stock {}, {}",
            e.id, e.type_, e.pet_id, e.stock, e.status
        ),
    }
}

/// The command line.
#[derive(Debug, Default)]
struct Args {
    listen: Option<String>,
    secret: Option<String>,
    subscribe: bool,
    count: Option<usize>,
}

fn args() -> Result<Args> {
    let mut parsed = Args::default();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} takes a value"));
        match arg.as_str() {
            "--listen" => parsed.listen = Some(value()?),
            "--secret" => parsed.secret = Some(value()?),
            "--count" => parsed.count = Some(value()?.parse()?),
            "--subscribe" => parsed.subscribe = true,
            other => return Err(format!("unknown argument {other}").into()),
        }
    }
    if parsed.secret.is_none() && !parsed.subscribe {
        return Err("give the endpoint's --secret whsec_..., or --subscribe".into());
    }
    Ok(parsed)
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<()> {
    let args = args()?;
    let listen = args.listen.as_deref().unwrap_or("127.0.0.1:9000");
    let listener = tokio::net::TcpListener::bind(listen).await?;
    let url = format!("http://{}/", listener.local_addr()?);
    // Subscribed here, or before by whoever gave the secret.
    let store = if args.subscribe {
        let base =
            std::env::var("PETSTORE_URL").unwrap_or_else(|_| "http://127.0.0.1:8080/v1".into());
        let key = std::env::var("PETSTORE_KEY").map_err(|_| "set PETSTORE_KEY to an API key")?;
        let client = Client::new(&base)?.with_bearer_auth(key);
        let created = client
            .create_webhook(CreateWebhookRequest {
                idempotency_key: None,
                body: NewWebhookEndpoint {
                    url: url.clone(),
                    events: StoreEventType::ALL.to_vec(),
                    description: Some("the webhook_receiver example".into()),
                },
            })
            .await?
            .into_inner();
        let CreateWebhookResponse::Created { body, .. } = created else {
            return Err(format!("the store refused the subscription: {created:?}").into());
        };
        Some((client, body.id, body.secret))
    } else {
        None
    };
    let secret = match (&store, args.secret) {
        (_, Some(secret)) => secret,
        (Some((_, _, secret)), None) => secret.clone(),
        (None, None) => unreachable!("args() asks for one"),
    };
    let (printed, mut events) = tokio::sync::mpsc::unbounded_channel();
    let printer = Arc::new(Printer {
        secrets: vec![WebhookSecret::parse(&secret)?],
        seen: Mutex::default(),
        printed,
    });
    let router = petstore_api::webhooks::axum::router(printer);
    println!("webhook receiver listening on {url}");
    let count = args.count;
    let enough = async move {
        let mut n = 0;
        while count.is_none_or(|count| n < count) && events.recv().await.is_some() {
            n += 1;
        }
    };
    axum::serve(listener, router)
        .with_graceful_shutdown(enough)
        .await?;
    if let Some((client, id, _)) = store {
        client
            .delete_webhook(DeleteWebhookRequest { webhook_id: id })
            .await?;
    }
    Ok(())
}
