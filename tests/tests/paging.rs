//! Every paging scheme a spec can declare (`x-pagination`) or the generator
//! infers, walked through the generated client of the `paging` snapshot
//! against a small server: all items in order, fetched a page at a time,
//! stopping at the end (an empty first page, a full last page), and
//! stopping with an error on a cursor the server repeats.

use actix_web::{web, App, HttpRequest, HttpResponse, HttpServer};
use petstore_tests::paging::{client::Client, operations::*, runtime};
use runtime::StreamExt as _;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// What the server holds: `items` items (ids 1..=items), and how it misbehaves.
struct Shelf {
    items: i64,
    /// The cursor scheme hands back the same cursor every time.
    repeat_cursor: bool,
    /// Pages served before every answer is a 503.
    fail_after: Option<usize>,
    /// Pages served.
    served: AtomicUsize,
}

fn query(request: &HttpRequest) -> HashMap<String, String> {
    form_urlencoded::parse(request.query_string().as_bytes())
        .into_owned()
        .collect()
}

fn number(query: &HashMap<String, String>, name: &str, default: i64) -> i64 {
    query
        .get(name)
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn item(id: i64) -> Value {
    json!({"id": id, "name": format!("item {id}")})
}

/// Items with ids in `from..=to`, clipped to the shelf.
fn items(shelf: &Shelf, from: i64, count: i64) -> Vec<Value> {
    (from..from + count)
        .filter(|id| (1..=shelf.items).contains(id))
        .map(item)
        .collect()
}

async fn linked(shelf: web::Data<Shelf>, request: HttpRequest) -> HttpResponse {
    shelf.served.fetch_add(1, Ordering::SeqCst);
    let q = query(&request);
    let (limit, after) = (number(&q, "limit", 3), number(&q, "after", 0));
    let page = items(&shelf, after + 1, limit);
    let mut response = HttpResponse::Ok();
    if after + limit < shelf.items {
        let next = format!(
            "</linked?limit={limit}&after={}>; rel=\"next\"",
            after + limit
        );
        response.insert_header(("Link", next));
    }
    response.json(page)
}

async fn cursored(shelf: web::Data<Shelf>, request: HttpRequest) -> HttpResponse {
    shelf.served.fetch_add(1, Ordering::SeqCst);
    let q = query(&request);
    let start: i64 = q
        .get("cursor")
        .and_then(|c| c.strip_prefix('c')?.parse().ok())
        .unwrap_or(0);
    let page = items(&shelf, start + 1, 3);
    let next = if shelf.repeat_cursor {
        json!("c3")
    } else if start + 3 < shelf.items {
        json!(format!("c{}", start + 3))
    } else {
        Value::Null
    };
    HttpResponse::Ok().json(json!({"items": page, "meta": {"next": next}}))
}

async fn after_last(shelf: web::Data<Shelf>, request: HttpRequest) -> HttpResponse {
    let served = shelf.served.fetch_add(1, Ordering::SeqCst);
    if shelf.fail_after.is_some_and(|n| served >= n) {
        return HttpResponse::ServiceUnavailable().json(json!({"code": "unavailable"}));
    }
    let q = query(&request);
    let (limit, after) = (number(&q, "limit", 3), number(&q, "after", 0));
    HttpResponse::Ok().json(items(&shelf, after + 1, limit))
}

async fn numbered(shelf: web::Data<Shelf>, request: HttpRequest) -> HttpResponse {
    shelf.served.fetch_add(1, Ordering::SeqCst);
    let q = query(&request);
    let (page, per_page) = (number(&q, "page", 1), number(&q, "per_page", 3));
    let results = items(&shelf, (page - 1) * per_page + 1, per_page);
    HttpResponse::Ok().json(json!({ "results": results }))
}

async fn offsets(shelf: web::Data<Shelf>, request: HttpRequest) -> HttpResponse {
    shelf.served.fetch_add(1, Ordering::SeqCst);
    let q = query(&request);
    let (offset, count) = (number(&q, "offset", 0), number(&q, "count", 3));
    HttpResponse::Ok().json(items(&shelf, offset + 1, count))
}

async fn striped(shelf: web::Data<Shelf>, request: HttpRequest) -> HttpResponse {
    shelf.served.fetch_add(1, Ordering::SeqCst);
    let q = query(&request);
    let limit = number(&q, "limit", 3);
    let after = number(&q, "starting_after", 0);
    let data = items(&shelf, after + 1, limit);
    HttpResponse::Ok().json(json!({"data": data, "has_more": after + limit < shelf.items}))
}

/// Serves a shelf; its client, and the shelf to count pages on.
async fn serve(items: i64, repeat_cursor: bool) -> (Client, Arc<Shelf>) {
    serve_shelf(Shelf {
        items,
        repeat_cursor,
        fail_after: None,
        served: AtomicUsize::new(0),
    })
    .await
}

async fn serve_shelf(shelf: Shelf) -> (Client, Arc<Shelf>) {
    let shelf = web::Data::new(shelf);
    let counted = shelf.clone().into_inner();
    let server = HttpServer::new(move || {
        App::new()
            .app_data(shelf.clone())
            .route("/linked", web::get().to(linked))
            .route("/cursored", web::get().to(cursored))
            .route("/after-last", web::get().to(after_last))
            .route("/numbered", web::get().to(numbered))
            .route("/offsets", web::get().to(offsets))
            .route("/striped", web::get().to(striped))
    })
    .workers(1)
    .bind(("127.0.0.1", 0))
    .expect("a port");
    let address = server.addrs()[0];
    actix_web::rt::spawn(server.run());
    let client = Client::new(&format!("http://{address}")).expect("a client");
    (client, counted)
}

/// Every item's id, or the error the walk ended with.
async fn ids<
    S: runtime::Stream<Item = Result<petstore_tests::paging::models::Item, runtime::ClientError>>,
>(
    stream: S,
) -> Result<Vec<i64>, String> {
    let mut stream = std::pin::pin!(stream);
    let mut ids = Vec::new();
    while let Some(item) = stream.next().await {
        ids.push(item.map_err(|e| e.to_string())?.id);
    }
    Ok(ids)
}

#[actix_web::test]
async fn every_scheme_walks_every_item_in_order() {
    let all: Vec<i64> = (1..=10).collect();
    let (client, shelf) = serve(10, false).await;
    let request = ListLinkedRequest {
        limit: Some(3),
        after: None,
    };
    assert_eq!(
        ids(client.list_linked_items(request)).await,
        Ok(all.clone()),
        "link"
    );
    let request = ListCursoredRequest { cursor: None };
    assert_eq!(
        ids(client.list_cursored_items(request)).await,
        Ok(all.clone()),
        "cursor"
    );
    let request = ListAfterLastRequest {
        limit: Some(3),
        after: None,
    };
    assert_eq!(
        ids(client.list_after_last_items(request)).await,
        Ok(all.clone()),
        "last item"
    );
    let request = ListNumberedRequest {
        page: None,
        per_page: Some(3),
    };
    assert_eq!(
        ids(client.list_numbered_items(request)).await,
        Ok(all.clone()),
        "page"
    );
    let request = ListOffsetsRequest {
        offset: None,
        count: Some(3),
    };
    assert_eq!(
        ids(client.list_offsets_items(request)).await,
        Ok(all.clone()),
        "offset"
    );
    let request = ListStripedRequest {
        limit: Some(3),
        starting_after: None,
    };
    assert_eq!(
        ids(client.list_striped_items(request)).await,
        Ok(all),
        "has_more"
    );
    // Four pages of at most three items each, per scheme: none fetched twice,
    // none past the end (a short last page is the last).
    assert_eq!(shelf.served.load(Ordering::SeqCst), 6 * 4);
}

#[actix_web::test]
async fn pages_are_fetched_only_when_asked_for() {
    let (client, shelf) = serve(10, false).await;
    let request = ListAfterLastRequest {
        limit: Some(3),
        after: None,
    };
    let mut items = std::pin::pin!(client.list_after_last_items(request));
    assert_eq!(
        shelf.served.load(Ordering::SeqCst),
        0,
        "nothing before the first poll"
    );
    for _ in 0..3 {
        items.next().await.unwrap().unwrap();
    }
    assert_eq!(
        shelf.served.load(Ordering::SeqCst),
        1,
        "one page for its three items"
    );
    items.next().await.unwrap().unwrap();
    assert_eq!(shelf.served.load(Ordering::SeqCst), 2);
}

#[actix_web::test]
async fn whole_pages_come_with_their_typed_response() {
    let (client, _) = serve(7, false).await;
    let request = ListLinkedRequest {
        limit: Some(3),
        after: None,
    };
    let mut pages = std::pin::pin!(client.list_linked_pages(request));
    let mut sizes = Vec::new();
    while let Some(page) = pages.next().await {
        let page = page.unwrap();
        assert_eq!(page.status, 200);
        match page.into_inner() {
            ListLinkedResponse::Ok { body, link } => {
                assert_eq!(
                    link.is_some(),
                    sizes.len() < 2,
                    "a next link but on the last page"
                );
                sizes.push(body.len());
            }
        }
    }
    assert_eq!(sizes, [3, 3, 1]);
}

#[actix_web::test]
async fn an_empty_first_page_ends_every_walk() {
    let (client, shelf) = serve(0, false).await;
    let empty = Ok(Vec::new());
    let request = ListLinkedRequest {
        limit: Some(3),
        after: None,
    };
    assert_eq!(ids(client.list_linked_items(request)).await, empty);
    let request = ListCursoredRequest { cursor: None };
    assert_eq!(ids(client.list_cursored_items(request)).await, empty);
    let request = ListAfterLastRequest {
        limit: Some(3),
        after: None,
    };
    assert_eq!(ids(client.list_after_last_items(request)).await, empty);
    let request = ListNumberedRequest {
        page: None,
        per_page: Some(3),
    };
    assert_eq!(ids(client.list_numbered_items(request)).await, empty);
    let request = ListOffsetsRequest {
        offset: None,
        count: Some(3),
    };
    assert_eq!(ids(client.list_offsets_items(request)).await, empty);
    let request = ListStripedRequest {
        limit: Some(3),
        starting_after: None,
    };
    assert_eq!(ids(client.list_striped_items(request)).await, empty);
    assert_eq!(shelf.served.load(Ordering::SeqCst), 6, "one request each");
}

#[actix_web::test]
async fn a_full_last_page_costs_one_empty_page_at_most() {
    let (client, shelf) = serve(9, false).await;
    let all: Vec<i64> = (1..=9).collect();
    // Without a signal of the end, a full page may have a next: one more
    // request finds it empty.
    let request = ListAfterLastRequest {
        limit: Some(3),
        after: None,
    };
    assert_eq!(
        ids(client.list_after_last_items(request)).await,
        Ok(all.clone())
    );
    assert_eq!(shelf.served.swap(0, Ordering::SeqCst), 4);
    // With one (a link, `has_more`), none is wasted.
    let request = ListLinkedRequest {
        limit: Some(3),
        after: None,
    };
    assert_eq!(
        ids(client.list_linked_items(request)).await,
        Ok(all.clone())
    );
    assert_eq!(shelf.served.swap(0, Ordering::SeqCst), 3);
    let request = ListStripedRequest {
        limit: Some(3),
        starting_after: None,
    };
    assert_eq!(ids(client.list_striped_items(request)).await, Ok(all));
    assert_eq!(shelf.served.swap(0, Ordering::SeqCst), 3);
}

#[actix_web::test]
async fn a_repeated_cursor_stops_the_walk_with_an_error() {
    let (client, shelf) = serve(10, true).await;
    let request = ListCursoredRequest { cursor: None };
    let error = ids(client.list_cursored_items(request)).await.unwrap_err();
    assert!(error.contains("cursor=c3"), "{error}");
    assert_eq!(
        shelf.served.load(Ordering::SeqCst),
        2,
        "the repeat is not fetched"
    );
}

#[actix_web::test]
async fn an_answer_that_is_not_a_page_ends_the_walk_after_the_items_before_it() {
    let (client, shelf) = serve_shelf(Shelf {
        items: 10,
        repeat_cursor: false,
        fail_after: Some(1),
        served: AtomicUsize::new(0),
    })
    .await;
    let request = ListAfterLastRequest {
        limit: Some(3),
        after: None,
    };
    let mut items = std::pin::pin!(client.list_after_last_items(request.clone()));
    for id in 1..=3 {
        assert_eq!(items.next().await.unwrap().unwrap().id, id);
    }
    match items.next().await {
        Some(Err(runtime::ClientError::NotAPage(answer))) => assert_eq!(answer.status, 503),
        other => panic!("expected the 503 as the walk's end, got {other:?}"),
    }
    assert!(items.next().await.is_none(), "nothing after the end");
    // Page by page, the first page, then the answer that is not one (the
    // operation does not declare 503: it comes as that error), then nothing.
    shelf.served.store(0, Ordering::SeqCst);
    let mut pages = std::pin::pin!(client.list_after_last_pages(request));
    assert!(pages.next().await.unwrap().is_ok());
    assert!(matches!(
        pages.next().await,
        Some(Err(runtime::ClientError::Undeclared(answer))) if answer.status == 503
    ));
    assert!(pages.next().await.is_none());
}
