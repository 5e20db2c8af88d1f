//! Every model of the pet store is an ordinary serde type: it round-trips
//! through JSON, and through two formats that are not self-describing,
//! postcard and MessagePack (`rmp-serde`, structs as arrays), which carry a
//! record as every property in order and a union as its JSON text. A model
//! added to the spec without a sample here fails
//! `every_model_has_a_sample`.

use chrono::{TimeZone as _, Utc};
use petstore_api::models::*;
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::collections::BTreeSet;
use std::fmt::Debug;

/// Round-trips each value through JSON, postcard and MessagePack.
fn round_trip<T>(values: &[T])
where
    T: Serialize + DeserializeOwned + PartialEq + Debug,
{
    for value in values {
        let json = serde_json::to_string(value).unwrap();
        assert_eq!(&serde_json::from_str::<T>(&json).unwrap(), value, "{json}");
        let bytes = postcard::to_allocvec(value).unwrap();
        assert_eq!(
            &postcard::from_bytes::<T>(&bytes).unwrap(),
            value,
            "postcard: {bytes:?}"
        );
        let bytes = rmp_serde::to_vec(value).unwrap();
        assert_eq!(
            &rmp_serde::from_slice::<T>(&bytes).unwrap(),
            value,
            "MessagePack: {bytes:?}"
        );
    }
}

/// The models round-tripped, by name (kept with [`samples`]).
const SAMPLED: &[&str] = &[
    "Category",
    "CreatedWebhookEndpoint",
    "Error",
    "Id",
    "InventoryEvent",
    "InventoryItem",
    "InventoryUpdate",
    "NewCategory",
    "NewOrder",
    "NewPet",
    "NewWebhookEndpoint",
    "Order",
    "OrderEvent",
    "Pet",
    "PetStatus",
    "Pets",
    "StoreEvent",
    "StoreEventType",
    "WebhookDelivery",
    "WebhookDeliveryResult",
    "WebhookEndpoint",
    "XApiStability",
];

fn at() -> chrono::DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 27, 12, 30, 5).unwrap()
}

fn pet(status: Option<PetStatus>) -> Pet {
    Pet {
        id: 7,
        name: "Rex".into(),
        category_id: 2,
        status,
    }
}

fn order_event() -> OrderEvent {
    OrderEvent {
        id: 3,
        type_: StoreEventType::OrderPlaced,
        order_id: 11,
        pet_id: 7,
        quantity: 2,
        stock: 8,
        occurred_at: at(),
    }
}

fn inventory_event() -> InventoryEvent {
    InventoryEvent {
        id: 4,
        type_: StoreEventType::InventoryChanged,
        pet_id: 7,
        stock: 0,
        status: PetStatus::Sold,
        occurred_at: at(),
    }
}

#[test]
fn samples() {
    round_trip(&[
        Category {
            id: 1,
            name: "Dogs".into(),
            description: None,
        },
        Category {
            id: 2,
            name: "Cats".into(),
            description: Some("Small ones".into()),
        },
    ]);
    round_trip(&[Error {
        code: "not_found".into(),
        message: "pet 9 not found".into(),
        status: 404,
    }]);
    round_trip::<Id>(&[1, i64::MAX]);
    round_trip(&[inventory_event()]);
    round_trip(&[InventoryItem {
        pet_id: 7,
        quantity: 3,
        status: PetStatus::Available,
    }]);
    round_trip(&[InventoryUpdate {
        quantity: 1_000_000,
    }]);
    round_trip(&[
        NewCategory {
            id: None,
            name: "Birds".into(),
            description: None,
        },
        NewCategory {
            id: Some(3),
            name: "Birds".into(),
            description: Some("Feathered".into()),
        },
    ]);
    round_trip(&[
        NewOrder {
            pet_id: 7,
            quantity: 1,
            ship_date: None,
        },
        NewOrder {
            pet_id: 7,
            quantity: 1,
            ship_date: Some(at()),
        },
    ]);
    round_trip(&[
        NewPet {
            id: None,
            name: "Rex".into(),
            category_id: 2,
            status: None,
        },
        NewPet {
            id: Some(7),
            name: "Rex".into(),
            category_id: 2,
            status: Some(PetStatus::Pending),
        },
    ]);
    round_trip(&[
        Order {
            id: Some(11),
            pet_id: Some(7),
            quantity: Some(2),
            ship_date: Some(at()),
            complete: Some(false),
        },
        Order {
            id: None,
            pet_id: None,
            quantity: None,
            ship_date: None,
            complete: None,
        },
    ]);
    round_trip(&[order_event()]);
    round_trip(&[pet(None), pet(Some(PetStatus::Sold))]);
    round_trip(&[PetStatus::Available, PetStatus::Pending, PetStatus::Sold]);
    round_trip::<Pets>(&[vec![], vec![pet(None), pet(Some(PetStatus::Available))]]);
    round_trip(&[
        StoreEvent::OrderEvent(order_event()),
        StoreEvent::InventoryEvent(inventory_event()),
    ]);
    round_trip(&StoreEventType::ALL);
    round_trip(&XApiStability::ALL);
    round_trip(&[
        NewWebhookEndpoint {
            url: "https://shop.example.com/hooks".into(),
            events: vec![StoreEventType::OrderPlaced],
            description: None,
        },
        NewWebhookEndpoint {
            url: "https://shop.example.com/hooks".into(),
            events: StoreEventType::ALL.to_vec(),
            description: Some("the back office".into()),
        },
    ]);
    round_trip(&[
        WebhookEndpoint {
            id: 1,
            url: "https://shop.example.com/hooks".into(),
            events: vec![StoreEventType::OrderPlaced],
            description: None,
            enabled: true,
            disabled_reason: None,
            created_at: at(),
        },
        WebhookEndpoint {
            id: 2,
            url: "https://shop.example.com/hooks".into(),
            events: vec![StoreEventType::InventoryChanged],
            description: Some("stock".into()),
            enabled: false,
            disabled_reason: Some("event 9 could not be delivered in 8 attempts".into()),
            created_at: at(),
        },
    ]);
    round_trip(&[CreatedWebhookEndpoint {
        id: 1,
        url: "https://shop.example.com/hooks".into(),
        events: vec![StoreEventType::OrderPlaced],
        description: None,
        enabled: true,
        disabled_reason: None,
        created_at: at(),
        secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw".into(),
    }]);
    round_trip(&[
        WebhookDelivery {
            id: 1,
            event_id: 9,
            attempt: 1,
            result: WebhookDeliveryResult::Succeeded,
            status: Some(204),
            error: None,
            attempted_at: at(),
        },
        WebhookDelivery {
            id: 2,
            event_id: 9,
            attempt: 2,
            result: WebhookDeliveryResult::TimedOut,
            status: None,
            error: Some("no answer within 10s".into()),
            attempted_at: at(),
        },
    ]);
    round_trip(&WebhookDeliveryResult::ALL);
}

#[test]
fn every_model_has_a_sample() {
    let models = include_str!("../../crates/petstore-api/src/generated/models.rs");
    let named: BTreeSet<&str> = models
        .lines()
        .filter_map(|line| {
            ["pub struct ", "pub enum ", "pub type "]
                .iter()
                .find_map(|item| line.strip_prefix(item))
        })
        .filter_map(|rest| rest.split([' ', '=', '{', '<']).next())
        .collect();
    let sampled: BTreeSet<&str> = SAMPLED.iter().copied().collect();
    assert_eq!(named, sampled, "every model, and only models, is sampled");
}

#[test]
fn a_value_read_from_a_newer_server_round_trips_as_it_came() {
    // A property the spec does not list is skipped, an enum value it does
    // not list is kept: what a client read, it can cache and forward.
    let newer = r#"{"id": 7, "name": "Rex", "categoryId": 2, "status": "adopted", "born": "2020"}"#;
    let read: Pet = serde_json::from_str(newer).unwrap();
    assert_eq!(read.status.as_ref().map(PetStatus::as_str), Some("adopted"));
    assert_eq!(
        serde_json::to_value(&read).unwrap(),
        serde_json::json!({"id": 7, "name": "Rex", "categoryId": 2, "status": "adopted"})
    );
    round_trip(&[read]);
}

#[test]
fn in_json_an_array_is_never_an_object() {
    // The positional form exists for formats that are not self-describing;
    // in JSON a request body `[null, null]` where the spec declares an
    // object is the client's mistake, and the server's reader says so.
    let error = serde_json::from_str::<NewCategory>(r#"["Dogs"]"#).unwrap_err();
    assert!(
        error.to_string().contains("invalid type: sequence"),
        "{error}"
    );
    let error = serde_json::from_str::<Pet>("[null, null]").unwrap_err();
    assert!(
        error.to_string().contains("invalid type: sequence"),
        "{error}"
    );
    let value = serde_json::json!([1, "Rex"]);
    assert!(serde_json::from_value::<NewPet>(value).is_err());
}
