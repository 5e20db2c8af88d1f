//! A webhook receiver generated from the pet store's own spec
//! (`petstore_api::webhooks`), served on actix-web under a scope: it
//! verifies each delivery's signature before its handler runs, answers
//! with the status it is set to, and hands what it got to the test.

use crate::helpers::HUNG;
use petstore_api::models::StoreEvent;
use petstore_api::runtime::{self, WebhookSecret};
use petstore_api::webhooks::operations::{
    DeliverStoreEventWebhookRequest, DeliverStoreEventWebhookResponse, ErrorResponse, Receiver,
};
use serde_json::json;
use std::sync::atomic::{AtomicU16, Ordering};
use std::sync::{Arc, OnceLock};
use tokio::sync::mpsc;

/// What the receiver's handler was given: the `webhook-id` and the event.
#[derive(Debug, Clone)]
pub struct Got {
    pub webhook_id: String,
    pub event: StoreEvent,
}

/// A receiver generated from the spec, answering every delivery with
/// `status` once its signature is verified with the endpoint's secret.
#[derive(Debug)]
pub struct Listener {
    pub secrets: OnceLock<Vec<WebhookSecret>>,
    pub status: AtomicU16,
    got: mpsc::UnboundedSender<Got>,
    /// While true, a delivery is handed to the test and then not answered
    /// until it is false again (a slow receiver).
    held: tokio::sync::watch::Sender<bool>,
}

impl Listener {
    /// Deliveries from now on are not answered until [`Listener::release`].
    pub fn hold(&self) {
        self.held.send_replace(true);
    }

    /// Held deliveries are answered, and later ones at once.
    pub fn release(&self) {
        self.held.send_replace(false);
    }
}

impl Receiver for Listener {
    async fn deliver_store_event(
        &self,
        request: DeliverStoreEventWebhookRequest,
        context: runtime::RequestContext,
    ) -> Result<DeliverStoreEventWebhookResponse, ErrorResponse> {
        let webhook_id = context
            .headers()
            .get(runtime::WEBHOOK_ID)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_string();
        let _ = self.got.send(Got {
            webhook_id,
            event: request.body,
        });
        let _ = self.held.subscribe().wait_for(|held| !*held).await;
        let status = runtime::StatusCode::from_u16(self.status.load(Ordering::Relaxed)).unwrap();
        Ok(if status.is_success() {
            DeliverStoreEventWebhookResponse::Success { status }
        } else {
            DeliverStoreEventWebhookResponse::Default { status }
        })
    }
}

impl petstore_api::webhooks::server::Rejections for Listener {
    fn reject(&self, rejection: runtime::Rejection) -> ErrorResponse {
        ErrorResponse::new(rejection.status(), json!({ "message": rejection.message }))
    }
}

impl runtime::Signatures for Listener {
    fn webhook_secrets(&self) -> &[WebhookSecret] {
        self.secrets.get().map_or(&[], Vec::as_slice)
    }
}

/// A receiver answering `status`, served on a port of its own: its URL,
/// the receiver (to give it its secret) and what it is given.
pub async fn receiver(status: u16) -> (String, Arc<Listener>, mpsc::UnboundedReceiver<Got>) {
    let (got, deliveries) = mpsc::unbounded_channel();
    let receiver = Arc::new(Listener {
        secrets: OnceLock::new(),
        status: AtomicU16::new(status),
        got,
        held: tokio::sync::watch::Sender::new(false),
    });
    let data = actix_web::web::Data::from(receiver.clone());
    let server = actix_web::HttpServer::new(move || {
        let data = data.clone();
        actix_web::App::new().service(
            actix_web::web::scope("/hooks/store")
                .configure(move |cfg| petstore_api::webhooks::server::configure(cfg, data)),
        )
    })
    .workers(1)
    .bind(("127.0.0.1", 0))
    .unwrap();
    let url = format!("http://{}/hooks/store", server.addrs()[0]);
    actix_web::rt::spawn(server.run());
    (url, receiver, deliveries)
}

/// The next delivery the receiver's handler was given.
pub async fn next(deliveries: &mut mpsc::UnboundedReceiver<Got>) -> Got {
    tokio::time::timeout(HUNG, deliveries.recv())
        .await
        .expect("a delivery (it hung)")
        .expect("the receiver lives")
}
