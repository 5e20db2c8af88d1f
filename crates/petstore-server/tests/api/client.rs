//! The generated client against the real server: every operation once, an
//! error of each kind, the deprecation warning, and a retried order that is
//! placed once.

use crate::helpers::spawn_app;
use petstore_api::client::Client;
use petstore_api::models::{
    InventoryUpdate, NewCategory, NewOrder, NewPet, PetStatus, XApiStability,
};
use petstore_api::operations::*;
use petstore_api::runtime::{ClientError, Retry};
use petstore_server::keys::{Limits, Plan};
use std::sync::{Arc, Mutex};

fn client(base: &str, key: &str) -> Client {
    Client::new(&format!("{base}/v1"))
        .unwrap()
        .with_bearer_auth(key)
}

fn new_pet(name: &str, category_id: i64) -> NewPet {
    NewPet {
        id: None,
        name: name.into(),
        category_id,
        status: Some(PetStatus::Available),
    }
}

#[actix_web::test]
async fn every_operation_answers_through_the_generated_client() {
    let app = spawn_app().await;
    let client = client(&app.base, &app.key);

    // Categories.
    let created = client
        .create_category(CreateCategoryRequest {
            idempotency_key: None,
            body: NewCategory {
                id: None,
                name: "Dogs".into(),
                description: Some("Loyal".into()),
            },
        })
        .await
        .unwrap();
    let limit = created
        .rate_limit()
        .expect("every response carries the rate limits");
    assert!(limit.remaining < limit.limit);
    let CreateCategoryResponse::Created {
        body: dogs,
        location,
    } = created.into_inner()
    else {
        panic!("expected 201")
    };
    assert_eq!(location, format!("/v1/categories/{}", dogs.id));
    let listed = client
        .list_categories(ListCategoriesRequest::default())
        .await
        .unwrap();
    assert!(
        matches!(listed.into_inner(), ListCategoriesResponse::Ok { body, .. } if body.len() == 1)
    );
    let got = client
        .get_category(GetCategoryRequest {
            category_id: dogs.id,
        })
        .await
        .unwrap()
        .into_inner();
    assert!(matches!(
        got,
        GetCategoryResponse::Ok {
            x_api_stability: Some(XApiStability::Beta),
            ..
        }
    ));

    // Pets.
    let CreatePetResponse::Created { body: rex, .. } = client
        .create_pet(CreatePetRequest {
            idempotency_key: None,
            body: new_pet("Rex", dogs.id),
        })
        .await
        .unwrap()
        .into_inner()
    else {
        panic!("expected 201")
    };
    let page = client
        .list_pets(ListPetsRequest {
            id: Some(vec![rex.id]),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert!(matches!(page, ListPetsResponse::Ok { ref body, .. } if body[0].id == rex.id));
    let replaced = client
        .replace_pet(ReplacePetRequest {
            pet_id: rex.id,
            body: new_pet("Rex II", dogs.id),
        })
        .await
        .unwrap()
        .into_inner();
    assert!(matches!(replaced, ReplacePetResponse::Ok(ref p) if p.name == "Rex II"));

    // Inventory.
    let item = client
        .update_inventory(UpdateInventoryRequest {
            pet_id: rex.id,
            body: InventoryUpdate { quantity: 5 },
        })
        .await
        .unwrap()
        .into_inner();
    assert!(matches!(item, UpdateInventoryResponse::Ok { ref body, .. } if body.quantity == 5));
    let got = client
        .get_inventory_item(GetInventoryItemRequest { pet_id: rex.id })
        .await
        .unwrap()
        .into_inner();
    assert!(matches!(got, GetInventoryItemResponse::Ok { ref body, .. } if body.quantity == 5));
    let all = client
        .list_inventory(ListInventoryRequest::default())
        .await
        .unwrap()
        .into_inner();
    assert!(matches!(all, ListInventoryResponse::Ok { ref body, .. } if body.len() == 1));

    // Orders.
    let order = |quantity| PlaceOrderRequest {
        idempotency_key: None,
        body: NewOrder {
            pet_id: rex.id,
            quantity,
            ship_date: None,
        },
    };
    let PlaceOrderResponse::Created { body: first, .. } =
        client.place_order(order(1)).await.unwrap().into_inner()
    else {
        panic!("expected 201")
    };
    let first_id = first.id.unwrap();
    let PlaceOrderResponse::Created { body: second, .. } =
        client.place_order(order(1)).await.unwrap().into_inner()
    else {
        panic!("expected 201")
    };
    let got = client
        .get_order(GetOrderRequest { order_id: first_id })
        .await
        .unwrap()
        .into_inner();
    assert!(matches!(got, GetOrderResponse::Ok(ref o) if o.quantity == Some(1)));
    let orders = client
        .list_orders(ListOrdersRequest::default())
        .await
        .unwrap()
        .into_inner();
    assert!(matches!(orders, ListOrdersResponse::Ok { ref body, .. } if body.len() == 2));
    let done = client
        .complete_order(CompleteOrderRequest {
            order_id: first_id,
            idempotency_key: None,
        })
        .await
        .unwrap()
        .into_inner();
    assert!(matches!(done, CompleteOrderResponse::Ok(ref o) if o.complete == Some(true)));

    // 409 of each rule, then the deletions that succeed.
    let cancel = |order_id| client.cancel_order(CancelOrderRequest { order_id });
    let completed = cancel(first_id).await.unwrap().into_inner();
    assert!(
        matches!(completed, CancelOrderResponse::Conflict(ref e) if e.code == "order_completed")
    );
    let open = client
        .delete_pet(DeletePetRequest { pet_id: rex.id })
        .await
        .unwrap()
        .into_inner();
    assert!(matches!(open, DeletePetResponse::Conflict(ref e) if e.code == "pet_has_open_orders"));
    let in_use = client
        .delete_category(DeleteCategoryRequest {
            category_id: dogs.id,
        })
        .await
        .unwrap()
        .into_inner();
    assert!(
        matches!(in_use, DeleteCategoryResponse::Conflict(ref e) if e.code == "category_in_use")
    );
    assert!(matches!(
        cancel(second.id.unwrap()).await.unwrap().into_inner(),
        CancelOrderResponse::NoContent
    ));
    assert!(matches!(
        client
            .delete_pet(DeletePetRequest { pet_id: rex.id })
            .await
            .unwrap()
            .into_inner(),
        DeletePetResponse::NoContent
    ));
    assert!(matches!(
        client
            .delete_category(DeleteCategoryRequest {
                category_id: dogs.id
            })
            .await
            .unwrap()
            .into_inner(),
        DeleteCategoryResponse::NoContent { .. }
    ));

    // 404 and 422.
    let missing = client
        .get_order(GetOrderRequest { order_id: 999 })
        .await
        .unwrap()
        .into_inner();
    assert!(matches!(missing, GetOrderResponse::NotFound(ref e) if e.code == "not_found"));
    let unknown = client
        .create_pet(CreatePetRequest {
            idempotency_key: None,
            body: new_pet("Ghost", 999),
        })
        .await
        .unwrap()
        .into_inner();
    assert!(
        matches!(unknown, CreatePetResponse::UnprocessableEntity(ref e) if e.code == "unknown_category")
    );

    // What breaks the spec's bounds is refused before anything is sent.
    let too_long = client
        .create_pet(CreatePetRequest {
            idempotency_key: None,
            body: new_pet(&"x".repeat(101), 1),
        })
        .await;
    assert!(
        matches!(too_long, Err(ClientError::Invalid(_))),
        "{too_long:?}"
    );
}

#[actix_web::test]
async fn rate_limits_are_typed_answers_with_their_retry_after() {
    let app = spawn_app().await;
    let key = app
        .key(
            Plan::Enterprise,
            Some(Limits {
                per_minute: 1,
                per_day: 100,
            }),
        )
        .await;
    let client = client(&app.base, &key);
    let first = client.list_pets(ListPetsRequest::default()).await.unwrap();
    assert_eq!(first.rate_limit().map(|r| r.remaining), Some(0));
    let limited = client
        .list_pets(ListPetsRequest::default())
        .await
        .unwrap()
        .into_inner();
    match limited {
        ListPetsResponse::TooManyRequests(TooManyRequests { body, retry_after }) => {
            assert_eq!(body.code, "rate_limited");
            assert!(retry_after > 0 && retry_after <= 60, "{retry_after}");
        }
        other => panic!("expected 429, got {other:?}"),
    }
}

#[actix_web::test]
async fn a_deprecated_call_warns_once() {
    use tracing_subscriber::layer::SubscriberExt as _;
    let seen = Arc::new(Mutex::new(Vec::<String>::new()));
    let _default = tracing::subscriber::set_default(
        tracing_subscriber::registry().with(Warnings(seen.clone())),
    );
    let app = spawn_app().await;
    let pet = app.pet_with_stock(1).await;
    let client = client(&app.base, &app.key);
    for _ in 0..2 {
        #[allow(deprecated, reason = "the deprecated operation is what is tested")]
        let got = client
            .get_pet(GetPetRequest { pet_id: pet })
            .await
            .unwrap()
            .into_inner();
        let GetPetResponse::Ok {
            sunset,
            deprecation,
            ..
        } = got
        else {
            panic!("expected 200")
        };
        assert_eq!(sunset.as_deref(), Some("Thu, 05 Dec 2030 00:00:00 GMT"));
        assert!(deprecation.is_some());
    }
    let warnings = seen.lock().unwrap().clone();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].contains("getPet"), "{warnings:?}");
}

/// Keeps the client's warnings about deprecated operations.
struct Warnings(Arc<Mutex<Vec<String>>>);

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for Warnings {
    fn on_event(&self, event: &tracing::Event<'_>, _: tracing_subscriber::layer::Context<'_, S>) {
        struct Text(String);
        impl tracing::field::Visit for Text {
            fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
                self.0.push_str(&format!("{}={value:?} ", field.name()));
            }
        }
        if *event.metadata().level() == tracing::Level::WARN {
            let mut text = Text(String::new());
            event.record(&mut text);
            if text.0.contains("deprecated") {
                self.0.lock().unwrap().push(text.0);
            }
        }
    }
}

/// A retried order resends its one `Idempotency-Key`: the first try is
/// placed but its answer lost on the way back; the retry gets the first
/// answer, and there is one order.
#[actix_web::test]
async fn a_retried_order_is_placed_once() {
    let app = spawn_app().await;
    let pet = app.pet_with_stock(5).await;
    let proxy = LossyProxy::start(app.base.trim_start_matches("http://").to_string()).await;
    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(0)
        .build()
        .unwrap();
    let client = Client::new(&format!("http://{}/v1", proxy.address))
        .unwrap()
        .with_http_client(http)
        .with_bearer_auth(&app.key)
        .with_retries(Retry {
            base: std::time::Duration::from_millis(10),
            ..Retry::default()
        });
    let placed = client
        .place_order(PlaceOrderRequest {
            idempotency_key: None,
            body: NewOrder {
                pet_id: pet,
                quantity: 1,
                ship_date: None,
            },
        })
        .await
        .unwrap()
        .into_inner();
    assert!(
        matches!(placed, PlaceOrderResponse::Created { .. }),
        "{placed:?}"
    );
    assert_eq!(proxy.dropped(), 1, "the first answer was lost on the way");
    let keys = proxy.idempotency_keys();
    assert_eq!(keys.len(), 2, "{keys:?}");
    assert!(keys[0].is_some() && keys[0] == keys[1], "{keys:?}");
    let orders = app.get("/v1/store/orders").await;
    assert_eq!(orders.body.as_array().map(Vec::len), Some(1), "{orders:?}");
}

/// A proxy in front of the server that forwards each request whole and
/// loses the answer to the first POST: the server did the work, the client
/// sees the connection close.
struct LossyProxy {
    address: String,
    state: Arc<Mutex<ProxyState>>,
}

#[derive(Default)]
struct ProxyState {
    dropped: usize,
    idempotency_keys: Vec<Option<String>>,
}

impl LossyProxy {
    async fn start(upstream: String) -> LossyProxy {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap().to_string();
        let state = Arc::new(Mutex::new(ProxyState::default()));
        let shared = state.clone();
        actix_web::rt::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                let (upstream, state) = (upstream.clone(), shared.clone());
                actix_web::rt::spawn(async move {
                    let _ = forward(client, &upstream, &state).await;
                });
            }
        });
        LossyProxy { address, state }
    }

    fn dropped(&self) -> usize {
        self.state.lock().unwrap().dropped
    }

    fn idempotency_keys(&self) -> Vec<Option<String>> {
        self.state.lock().unwrap().idempotency_keys.clone()
    }
}

/// One request, read whole (headers and a `Content-Length` body).
async fn read_message(stream: &mut tokio::net::TcpStream) -> std::io::Result<Vec<u8>> {
    use tokio::io::AsyncReadExt as _;
    let mut data = Vec::new();
    let mut buffer = [0u8; 4096];
    loop {
        let n = stream.read(&mut buffer).await?;
        if n == 0 {
            return Ok(data);
        }
        data.extend_from_slice(&buffer[..n]);
        if let Some(end) = data.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&data[..end]).to_ascii_lowercase();
            let length: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or(0);
            if data.len() >= end + 4 + length {
                return Ok(data);
            }
        }
    }
}

async fn forward(
    mut client: tokio::net::TcpStream,
    upstream: &str,
    state: &Mutex<ProxyState>,
) -> std::io::Result<()> {
    use tokio::io::AsyncWriteExt as _;
    let request = read_message(&mut client).await?;
    let text = String::from_utf8_lossy(&request).to_string();
    let post = text.starts_with("POST ");
    if post {
        let key = text.lines().find_map(|l| {
            l.to_ascii_lowercase()
                .strip_prefix("idempotency-key:")
                .map(|_| l[16..].trim().to_string())
        });
        state.lock().unwrap().idempotency_keys.push(key);
    }
    let mut server = tokio::net::TcpStream::connect(upstream).await?;
    server.write_all(&request).await?;
    let answer = read_message(&mut server).await?;
    let lose = post && {
        let mut state = state.lock().unwrap();
        let first = state.dropped == 0;
        if first {
            state.dropped += 1;
        }
        first
    };
    if !lose {
        client.write_all(&answer).await?;
    }
    client.shutdown().await
}

/// The lists walked as streams: 250 pets in pages of 7, each pet once, in
/// id order, and the inventory beside them.
#[actix_web::test]
async fn lists_walk_every_page_through_the_client_streams() {
    use petstore_api::runtime::StreamExt as _;
    let app = spawn_app().await;
    let client = client(&app.base, &app.key);
    let category = client
        .create_category(CreateCategoryRequest {
            idempotency_key: None,
            body: NewCategory {
                id: None,
                name: "Many".into(),
                description: None,
            },
        })
        .await
        .unwrap();
    let CreateCategoryResponse::Created { body: category, .. } = category.into_inner() else {
        panic!("expected 201")
    };
    let mut created = Vec::new();
    for i in 0..250 {
        let request = CreatePetRequest {
            idempotency_key: None,
            body: new_pet(&format!("pet {i}"), category.id),
        };
        match client.create_pet(request).await.unwrap().into_inner() {
            CreatePetResponse::Created { body, .. } => created.push(body.id),
            other => panic!("expected 201, got {other:?}"),
        }
    }
    let pets = ListPetsRequest {
        limit: 7,
        ..ListPetsRequest::default()
    };
    let walked: Vec<i64> = client
        .list_pets_items(pets.clone())
        .map(|pet| pet.unwrap().id)
        .collect()
        .await;
    assert_eq!(walked, created, "every pet once, in id order");
    let pages: Vec<usize> = client
        .list_pets_pages(pets)
        .map(|page| match page.unwrap().into_inner() {
            ListPetsResponse::Ok { body, .. } => body.len(),
            other => panic!("expected a page, got {other:?}"),
        })
        .collect()
        .await;
    assert_eq!(
        pages.len(),
        36,
        "250 pets in pages of 7: the short last page is the last"
    );
    assert!(pages[..35].iter().all(|&n| n == 7) && pages[35] == 5);
    let stock: Vec<(i64, i32)> = client
        .list_inventory_items(ListInventoryRequest {
            limit: 7,
            ..ListInventoryRequest::default()
        })
        .map(|entry| {
            let entry = entry.unwrap();
            (entry.pet_id, entry.quantity)
        })
        .collect()
        .await;
    assert_eq!(stock.len(), 250);
    assert!(stock.iter().map(|(id, _)| *id).eq(created.iter().copied()));
    assert!(
        stock.iter().all(|&(_, quantity)| quantity == 1),
        "a new pet's stock is 1"
    );
}
