//! The pet store's handlers: the generated route traits, implemented over the
//! store. Each method maps a typed request to a typed response; errors travel
//! as [`ApiError`] and become the operation's declared error response.

use crate::error::ApiError;
use crate::feed::{Feed, Filter, Holder};
use crate::keys::KeyInfo;
use crate::store::{Db, Idempotency, Listed, Page, PetFilter};
use chrono::{DateTime, Utc};
use petstore_api::metadata::{self, BASE_PATH};
use petstore_api::operations::*;
use petstore_api::runtime::{Operation, Rejection, RejectionKind, RequestContext};
use petstore_api::server::Rejections;
use sha2::{Digest, Sha256};
use std::fmt::Write as _;
use std::sync::Arc;

/// The source of "now": the wall clock in production, a fixed or stepped one in
/// tests.
pub type Clock = Arc<dyn Fn() -> DateTime<Utc> + Send + Sync>;

pub fn system_clock() -> Clock {
    Arc::new(Utc::now)
}

/// The state every request handler shares.
#[derive(Clone)]
pub struct PetStore {
    pub db: Db,
    pub clock: Clock,
    /// The live feed of store events (`watch_store`).
    pub feed: Feed,
    /// How long an event stream stays silent before a comment goes out.
    pub stream_keep_alive: std::time::Duration,
    /// Webhook URLs may name loopback and private addresses.
    pub webhooks_allow_private: bool,
}

impl std::fmt::Debug for PetStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PetStore")
            .field("db", &self.db)
            .finish_non_exhaustive()
    }
}

type Result<T> = std::result::Result<T, ErrorResponse>;

impl Rejections for PetStore {
    fn reject(&self, rejection: Rejection) -> ErrorResponse {
        match rejection.kind {
            // Logged with its cause; the client sees the generic message.
            RejectionKind::Internal => ApiError::Internal(rejection.message.into()).into(),
            _ => rejection.into(),
        }
    }
}

fn page(limit: i32, after: Option<i64>) -> Page {
    Page {
        after: after.unwrap_or(0),
        // The glue has checked 1..=100.
        limit: u32::try_from(limit).unwrap_or(1),
    }
}

/// `Link: <...>; rel="next"` for a page of `list` that may have a
/// successor: the same query with `after` set to the page's last id.
fn next_link<T>(
    listed: &Listed<T>,
    list: &Operation,
    limit: i32,
    last_id: impl Fn(&T) -> i64,
    filters: &[(&str, String)],
) -> Option<String> {
    if !listed.more {
        return None;
    }
    let last = last_id(listed.items.last()?);
    let mut link = format!("<{BASE_PATH}{}?limit={limit}&after={last}", list.path);
    for (name, value) in filters {
        let _ = write!(link, "&{name}={value}");
    }
    link.push_str(">; rel=\"next\"");
    Some(link)
}

impl PetStore {
    /// The idempotency context of a POST: present when the client sent an
    /// `Idempotency-Key`. The hash covers the operation and the decoded request,
    /// so a retry whose JSON differs only in spacing or key order is the same
    /// request.
    fn idempotency(
        &self,
        context: &RequestContext,
        key: Option<&String>,
        operation: &str,
        request: &impl serde::Serialize,
    ) -> Option<Idempotency> {
        let key = key?;
        let caller = context.extension::<KeyInfo>()?;
        let mut hash = Sha256::new();
        hash.update(operation.as_bytes());
        hash.update(b"\n");
        hash.update(serde_json::to_vec(request).unwrap_or_default());
        Some(Idempotency {
            key_id: caller.id,
            key: key.clone(),
            request_hash: hash.finalize().iter().map(|b| format!("{b:02x}")).collect(),
            now: (self.clock)().timestamp(),
        })
    }
}

/// The URL of a created resource: the path of the operation that reads it,
/// with its one parameter set to `id`.
fn location(get: &Operation, id: i64) -> String {
    let path = match (get.path.find('{'), get.path.find('}')) {
        (Some(open), Some(close)) => format!("{}{id}{}", &get.path[..open], &get.path[close + 1..]),
        _ => get.path.to_string(),
    };
    format!("{BASE_PATH}{path}")
}

impl Pets for PetStore {
    async fn list_pets(
        &self,
        request: ListPetsRequest,
        _context: RequestContext,
    ) -> Result<ListPetsResponse> {
        let filter = PetFilter {
            status: request.status.clone(),
            category_id: request.category_id,
            ids: request.id.clone(),
        };
        let listed = self
            .db
            .list_pets(&filter, page(request.limit, request.after))
            .await?;
        let mut filters = Vec::new();
        if let Some(s) = request.status {
            filters.push(("status", s.to_string()));
        }
        if let Some(c) = request.category_id {
            filters.push(("categoryId", c.to_string()));
        }
        for id in request.id.iter().flatten() {
            filters.push(("id", id.to_string()));
        }
        let link = next_link(
            &listed,
            metadata::LIST_PETS,
            request.limit,
            |p| p.id,
            &filters,
        );
        Ok(ListPetsResponse::Ok {
            body: listed.items,
            link,
        })
    }

    async fn create_pet(
        &self,
        request: CreatePetRequest,
        context: RequestContext,
    ) -> Result<CreatePetResponse> {
        let idem = self.idempotency(
            &context,
            request.idempotency_key.as_ref(),
            metadata::CREATE_PET.id,
            &request.body,
        );
        let pet = self.db.create_pet(&request.body, idem.as_ref()).await?;
        Ok(CreatePetResponse::Created {
            location: location(metadata::GET_PET, pet.id),
            body: pet,
        })
    }

    async fn get_pet(
        &self,
        request: GetPetRequest,
        _context: RequestContext,
    ) -> Result<GetPetResponse> {
        let pet = self.db.pet(request.pet_id).await?;
        Ok(GetPetResponse::Ok {
            body: pet,
            deprecation: None,
            sunset: None,
            link: None,
        })
    }

    async fn replace_pet(
        &self,
        request: ReplacePetRequest,
        _context: RequestContext,
    ) -> Result<ReplacePetResponse> {
        let pet = self.db.replace_pet(request.pet_id, &request.body).await?;
        Ok(ReplacePetResponse::Ok(pet))
    }

    async fn delete_pet(
        &self,
        request: DeletePetRequest,
        _context: RequestContext,
    ) -> Result<DeletePetResponse> {
        self.db.delete_pet(request.pet_id).await?;
        Ok(DeletePetResponse::NoContent)
    }

    async fn list_categories(
        &self,
        request: ListCategoriesRequest,
        _context: RequestContext,
    ) -> Result<ListCategoriesResponse> {
        let listed = self
            .db
            .list_categories(page(request.limit, request.after))
            .await?;
        let link = next_link(
            &listed,
            metadata::LIST_CATEGORIES,
            request.limit,
            |c| c.id,
            &[],
        );
        Ok(ListCategoriesResponse::Ok {
            body: listed.items,
            link,
        })
    }

    async fn create_category(
        &self,
        request: CreateCategoryRequest,
        context: RequestContext,
    ) -> Result<CreateCategoryResponse> {
        let idem = self.idempotency(
            &context,
            request.idempotency_key.as_ref(),
            metadata::CREATE_CATEGORY.id,
            &request.body,
        );
        let category = self
            .db
            .create_category(&request.body, idem.as_ref())
            .await?;
        Ok(CreateCategoryResponse::Created {
            location: location(metadata::GET_CATEGORY, category.id),
            body: category,
        })
    }

    async fn get_category(
        &self,
        request: GetCategoryRequest,
        _context: RequestContext,
    ) -> Result<GetCategoryResponse> {
        let category = self.db.category(request.category_id).await?;
        Ok(GetCategoryResponse::Ok {
            body: category,
            x_api_stability: None,
        })
    }

    async fn delete_category(
        &self,
        request: DeleteCategoryRequest,
        _context: RequestContext,
    ) -> Result<DeleteCategoryResponse> {
        self.db.delete_category(request.category_id).await?;
        Ok(DeleteCategoryResponse::NoContent {
            x_api_stability: None,
        })
    }
}

impl Store for PetStore {
    async fn list_orders(
        &self,
        request: ListOrdersRequest,
        _context: RequestContext,
    ) -> Result<ListOrdersResponse> {
        let listed = self
            .db
            .list_orders(
                request.pet_id,
                request.complete,
                page(request.limit, request.after),
            )
            .await?;
        let mut filters = Vec::new();
        if let Some(p) = request.pet_id {
            filters.push(("petId", p.to_string()));
        }
        if let Some(c) = request.complete {
            filters.push(("complete", c.to_string()));
        }
        let link = next_link(
            &listed,
            metadata::LIST_ORDERS,
            request.limit,
            |o| o.id.unwrap_or_default(),
            &filters,
        );
        Ok(ListOrdersResponse::Ok {
            body: listed.items,
            link,
        })
    }

    async fn place_order(
        &self,
        request: PlaceOrderRequest,
        context: RequestContext,
    ) -> Result<PlaceOrderResponse> {
        let idem = self.idempotency(
            &context,
            request.idempotency_key.as_ref(),
            metadata::PLACE_ORDER.id,
            &request.body,
        );
        let order = self.db.place_order(&request.body, idem.as_ref()).await?;
        let id = order
            .id
            .ok_or_else(|| ApiError::Internal("a placed order has no id".into()))?;
        Ok(PlaceOrderResponse::Created {
            location: location(metadata::GET_ORDER, id),
            body: order,
        })
    }

    async fn get_order(
        &self,
        request: GetOrderRequest,
        _context: RequestContext,
    ) -> Result<GetOrderResponse> {
        Ok(GetOrderResponse::Ok(self.db.order(request.order_id).await?))
    }

    async fn cancel_order(
        &self,
        request: CancelOrderRequest,
        _context: RequestContext,
    ) -> Result<CancelOrderResponse> {
        self.db.cancel_order(request.order_id).await?;
        Ok(CancelOrderResponse::NoContent)
    }

    async fn complete_order(
        &self,
        request: CompleteOrderRequest,
        context: RequestContext,
    ) -> Result<CompleteOrderResponse> {
        let idem = self.idempotency(
            &context,
            request.idempotency_key.as_ref(),
            metadata::COMPLETE_ORDER.id,
            &request.order_id,
        );
        let order = self
            .db
            .complete_order(request.order_id, (self.clock)(), idem.as_ref())
            .await?;
        Ok(CompleteOrderResponse::Ok(order))
    }

    async fn watch_store(
        &self,
        request: WatchStoreRequest,
        context: RequestContext,
    ) -> Result<WatchStoreResponse> {
        let holder = context.extension::<KeyInfo>().map(|key| Holder {
            key_id: key.id,
            max_streams: key.plan.max_streams(),
        });
        let filter = Filter {
            types: request.type_,
            pet_id: request.pet_id,
        };
        let events = self
            .feed
            .subscribe(request.last_event_id, filter, holder)
            .await?;
        Ok(WatchStoreResponse::Ok {
            body: petstore_api::runtime::EventStream::new(events)
                .keep_alive(self.stream_keep_alive)
                .retry_at_end(crate::feed::RECONNECT_AFTER),
            x_api_stability: None,
        })
    }

    async fn list_inventory(
        &self,
        request: ListInventoryRequest,
        _context: RequestContext,
    ) -> Result<ListInventoryResponse> {
        let listed = self
            .db
            .list_inventory(request.status.clone(), page(request.limit, request.after))
            .await?;
        let filters: Vec<_> = request
            .status
            .iter()
            .map(|s| ("status", s.to_string()))
            .collect();
        let link = next_link(
            &listed,
            metadata::LIST_INVENTORY,
            request.limit,
            |i| i.pet_id,
            &filters,
        );
        Ok(ListInventoryResponse::Ok {
            body: listed.items,
            x_api_stability: None,
            link,
        })
    }

    async fn get_inventory_item(
        &self,
        request: GetInventoryItemRequest,
        _context: RequestContext,
    ) -> Result<GetInventoryItemResponse> {
        Ok(GetInventoryItemResponse::Ok {
            body: self.db.inventory_item(request.pet_id).await?,
            x_api_stability: None,
        })
    }

    async fn update_inventory(
        &self,
        request: UpdateInventoryRequest,
        _context: RequestContext,
    ) -> Result<UpdateInventoryResponse> {
        let item = self
            .db
            .update_inventory(request.pet_id, request.body.quantity)
            .await?;
        Ok(UpdateInventoryResponse::Ok {
            body: item,
            x_api_stability: None,
        })
    }
}

/// The key a request was made with: the gate attaches it to every
/// operation that needs one, as the webhooks' do.
fn caller(context: &RequestContext) -> Result<KeyInfo> {
    context
        .extension::<KeyInfo>()
        .ok_or_else(|| ApiError::Internal("no API key attached to a keyed operation".into()).into())
}

/// A new endpoint's signing secret: `whsec_` and 32 random bytes in base64.
fn webhook_secret() -> std::result::Result<String, ApiError> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes)
        .map_err(|e| ApiError::Internal(format!("no random bytes for a secret: {e}").into()))?;
    let secret = petstore_api::runtime::WebhookSecret::from_bytes(bytes.to_vec())
        .ok_or_else(|| ApiError::Internal("an empty secret".into()))?;
    Ok(secret.expose())
}

impl Webhooks for PetStore {
    async fn list_webhooks(
        &self,
        request: ListWebhooksRequest,
        context: RequestContext,
    ) -> Result<ListWebhooksResponse> {
        let key = caller(&context)?;
        let listed = self
            .db
            .list_webhooks(key.id, page(request.limit, request.after))
            .await?;
        let link = next_link(
            &listed,
            metadata::LIST_WEBHOOKS,
            request.limit,
            |w| w.id,
            &[],
        );
        Ok(ListWebhooksResponse::Ok {
            body: listed.items,
            link,
            x_api_stability: None,
        })
    }

    async fn create_webhook(
        &self,
        request: CreateWebhookRequest,
        context: RequestContext,
    ) -> Result<CreateWebhookResponse> {
        let key = caller(&context)?;
        crate::webhooks::check_url(&request.body.url, self.webhooks_allow_private).map_err(
            |message| ApiError::Unprocessable {
                code: "validation_failed",
                message,
            },
        )?;
        let idem = self.idempotency(
            &context,
            request.idempotency_key.as_ref(),
            metadata::CREATE_WEBHOOK.id,
            &request.body,
        );
        let new = request.body;
        let endpoint = crate::store::webhooks::NewEndpoint {
            key_id: key.id,
            url: new.url,
            events: new.events,
            description: new.description,
            secret: webhook_secret()?,
            max_endpoints: key.plan.max_webhooks(),
        };
        // The endpoint gets the events after its creation: those committed
        // before it, its client's own writes among them, have final ids
        // below its cursor.
        self.feed.sequence_committed().await?;
        let created = self
            .db
            .create_webhook(endpoint, (self.clock)(), idem.as_ref())
            .await?;
        Ok(CreateWebhookResponse::Created {
            location: location(metadata::GET_WEBHOOK, created.id),
            body: created,
            x_api_stability: None,
        })
    }

    async fn get_webhook(
        &self,
        request: GetWebhookRequest,
        context: RequestContext,
    ) -> Result<GetWebhookResponse> {
        let key = caller(&context)?;
        Ok(GetWebhookResponse::Ok {
            body: self.db.webhook(key.id, request.webhook_id).await?,
            x_api_stability: None,
        })
    }

    async fn delete_webhook(
        &self,
        request: DeleteWebhookRequest,
        context: RequestContext,
    ) -> Result<DeleteWebhookResponse> {
        let key = caller(&context)?;
        self.db.delete_webhook(key.id, request.webhook_id).await?;
        Ok(DeleteWebhookResponse::NoContent {
            x_api_stability: None,
        })
    }

    async fn list_webhook_deliveries(
        &self,
        request: ListWebhookDeliveriesRequest,
        context: RequestContext,
    ) -> Result<ListWebhookDeliveriesResponse> {
        let key = caller(&context)?;
        let listed = self
            .db
            .list_webhook_deliveries(
                key.id,
                request.webhook_id,
                page(request.limit, request.after),
            )
            .await?;
        let link = next_link(
            &listed,
            metadata::LIST_WEBHOOK_DELIVERIES,
            request.limit,
            |d| d.id,
            &[],
        );
        Ok(ListWebhookDeliveriesResponse::Ok {
            body: listed.items,
            link,
            x_api_stability: None,
        })
    }
}
