//! Guarantees of the generated interface that the server relies on.

use std::path::Path;

fn generated(file: &str) -> syn::File {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../crates/petstore-api/src/generated")
        .join(file);
    syn::parse_file(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn trait_methods() -> Vec<(String, syn::TraitItemFn)> {
    generated("operations.rs")
        .items
        .into_iter()
        .filter_map(|item| match item {
            syn::Item::Trait(t) => Some(t),
            _ => None,
        })
        .flat_map(|t| {
            let name = t.ident.to_string();
            t.items.into_iter().filter_map(move |i| match i {
                syn::TraitItem::Fn(f) => Some((name.clone(), f)),
                _ => None,
            })
        })
        .collect()
}

/// No route trait method has a default body, so a spec edit that adds an
/// operation stops the server from compiling until it implements it.
#[test]
fn route_trait_methods_have_no_defaults() {
    let methods = trait_methods();
    assert!(!methods.is_empty());
    for (tr, m) in &methods {
        assert!(
            m.default.is_none(),
            "{tr}::{} has a default body",
            m.sig.ident
        );
    }
}

/// Every operation of the spec is one trait method, under its tag's trait.
#[test]
fn every_operation_is_a_trait_method() {
    let methods = trait_methods();
    assert_eq!(methods.len(), petstore_api::metadata::OPERATIONS.len());
    for op in petstore_api::metadata::OPERATIONS {
        let snake = apigen::names::sanitize(op.id, apigen::names::Case::Snake);
        assert!(
            methods
                .iter()
                .any(|(tr, m)| *tr == op.tag && m.sig.ident == snake),
            "no method {}::{snake} for {}",
            op.tag,
            op.id
        );
    }
    assert_eq!(petstore_api::metadata::OPERATIONS.len(), 23);
}

/// The deprecated operation carries `#[deprecated]` naming its sunset date, and
/// stability shows in the rustdoc.
#[test]
fn deprecation_and_stability_reach_the_trait() {
    let methods = trait_methods();
    let get_pet = &methods
        .iter()
        .find(|(_, m)| m.sig.ident == "get_pet")
        .unwrap()
        .1;
    let deprecated = get_pet
        .attrs
        .iter()
        .find(|a| a.path().is_ident("deprecated"))
        .expect("get_pet is #[deprecated]");
    let text = quote_attr(deprecated);
    assert!(text.contains("2030-12-05"), "{text}");

    let beta = &methods
        .iter()
        .find(|(_, m)| m.sig.ident == "get_category")
        .unwrap()
        .1;
    let docs: String = beta
        .attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .map(quote_attr)
        .collect();
    assert!(docs.contains("Stability: beta"), "{docs}");

    let meta = petstore_api::metadata::by_id("getPet").unwrap();
    assert_eq!(meta.sunset, Some("2030-12-05"));
    assert_eq!(meta.deprecated_since, Some("2026-11-01"));
    assert_eq!(meta.successor, Some("listPets"));
    let update = petstore_api::metadata::by_id("updateInventory").unwrap();
    assert_eq!(
        update.stability,
        petstore_api::runtime::Stability::Experimental
    );
}

fn quote_attr(a: &syn::Attribute) -> String {
    match &a.meta {
        syn::Meta::NameValue(nv) => match &nv.value {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => s.value(),
            _ => String::new(),
        },
        syn::Meta::List(l) => l.tokens.to_string(),
        syn::Meta::Path(_) => String::new(),
    }
}

/// Requests that fail the spec's bounds never reach a handler: the generated
/// checks refuse them.
#[test]
fn generated_checks_enforce_the_bounds() {
    use petstore_api::models::{NewPet, PetStatus};
    use petstore_api::runtime::Validate;
    let ok = NewPet {
        id: None,
        name: "Rex".into(),
        category_id: 1,
        status: Some(PetStatus::Available),
    };
    assert!(ok.validate().is_ok());
    let long = NewPet {
        name: "x".repeat(101),
        ..ok.clone()
    };
    assert_eq!(
        long.validate().unwrap_err().to_string(),
        "`name` must be at most 100 characters long"
    );
    let zero = NewPet {
        category_id: 0,
        ..ok.clone()
    };
    assert_eq!(
        zero.validate().unwrap_err().to_string(),
        "`categoryId` must be at least 1"
    );
    let read_only = NewPet { id: Some(3), ..ok };
    assert_eq!(
        read_only.validate().unwrap_err().to_string(),
        "`id` is read-only"
    );
    assert_eq!("sold".parse::<PetStatus>(), Ok(PetStatus::Sold));
    // A value the spec does not list: kept (as a client reads it), or
    // refused strictly (as a server does).
    let lost: PetStatus = "lost".parse().unwrap();
    assert_eq!(lost.as_str(), "lost");
    assert!(matches!(lost, PetStatus::Unknown(_)));
    assert!(apigen_runtime::__private::strictly(|| "lost".parse::<PetStatus>()).is_err());
    assert_eq!(PetStatus::Pending.to_string(), "pending");
}
