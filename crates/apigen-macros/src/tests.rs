//! What the derives read from a type, and what they refuse, with the
//! message a user sees. What the expansions do is tested where they run:
//! every generated crate's models, through the glue, client and mock.

use crate::model::{read, Reading, Shape};
use quote::quote;

fn model(tokens: proc_macro2::TokenStream) -> syn::Result<crate::model::Model> {
    read(&syn::parse2(tokens).unwrap())
}

fn error(tokens: proc_macro2::TokenStream) -> String {
    match model(tokens) {
        Ok(_) => panic!("read without an error"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn a_field_is_read_as_its_type_and_flags_say() {
    let m = model(quote! {
        #[wire(deny_unknown, read_if(feature = "server"))]
        struct Pet {
            id: i64,
            tags: Vec<String>,
            photo: Vec<u8>,
            #[wire(rename = "nickName")]
            nick: Option<String>,
            #[wire(nullable, null_text)]
            age: Option<i32>,
            #[wire(required, nullable)]
            owner: Option<String>,
            note: runtime::Nullable<String>,
            #[wire(default = "default_size")]
            size: i32,
            #[wire(shared)]
            kind: String,
            #[wire(flatten)]
            body: Body,
            #[wire(additional)]
            additional_properties: std::collections::BTreeMap<String, i64>,
            r#type: String,
        }
    })
    .unwrap();
    let Shape::Record(r) = &m.shape else {
        panic!("a record")
    };
    assert!(r.deny_unknown);
    assert_eq!(m.read_if.unwrap().to_string(), "feature = \"server\"");
    assert!(m.write_if.is_none());
    let readings: Vec<(&str, &str)> = r
        .named
        .iter()
        .map(|n| {
            let reading = match n.reading {
                Reading::Required => "required",
                Reading::RequiredList => "list",
                Reading::Optional => "optional",
                Reading::OptionalNullable => "optional nullable",
                Reading::RequiredNullable => "required nullable",
                Reading::ThreeState => "three-state",
                Reading::Defaulted(_) => "defaulted",
            };
            (n.wire.as_str(), reading)
        })
        .collect();
    assert_eq!(
        readings,
        [
            ("id", "required"),
            ("tags", "list"),
            ("photo", "required"),
            ("nickName", "optional"),
            ("age", "optional nullable"),
            ("owner", "required nullable"),
            ("note", "three-state"),
            ("size", "defaulted"),
            ("kind", "required"),
            ("type", "required"),
        ]
    );
    let plain = |wire: &str| {
        let n = r.named.iter().find(|n| n.wire == wire).unwrap();
        let ty = &n.plain;
        quote!(#ty).to_string()
    };
    assert_eq!(plain("nickName"), "String");
    assert_eq!(plain("note"), "String");
    assert_eq!(plain("tags"), "Vec < String >");
    assert!(r.named.iter().find(|n| n.wire == "age").unwrap().null_text);
    assert!(r.named.iter().find(|n| n.wire == "kind").unwrap().shared);
    assert_eq!(r.flattened.len(), 1);
    assert!(r.additional.is_some());
}

#[test]
fn a_string_enum_names_its_values_in_snake_case_unless_renamed() {
    let m = model(quote! {
        enum Status {
            Available,
            InStock,
            #[wire(rename = "order.placed")]
            OrderPlaced,
            #[wire(unknown)]
            Other(runtime::Unknown),
        }
    })
    .unwrap();
    let Shape::Enum(e) = &m.shape else {
        panic!("an enum")
    };
    let wires: Vec<&str> = e.variants.iter().map(|(_, w)| w.as_str()).collect();
    assert_eq!(wires, ["available", "in_stock", "order.placed"]);
    assert_eq!(e.unknown, "Other");
}

#[test]
fn what_cannot_be_read_is_refused_with_what_to_write() {
    assert_eq!(
        error(quote! { struct A { #[wire(bogus)] a: i64 } }),
        "unknown `wire` key `bogus`"
    );
    assert!(
        error(quote! { struct A { #[wire(required)] a: Option<i64> } })
            .contains("write `#[wire(required, nullable)]`")
    );
    assert!(error(quote! { struct A { #[wire(nullable)] a: i64 } })
        .contains("apply to an `Option` field"));
    assert_eq!(
        error(quote! { enum E { A, B } }),
        "a string enum needs a `#[wire(unknown)]` variant holding a `runtime::Unknown`"
    );
    assert!(
        error(quote! { enum E { A(i64), #[wire(unknown)] U(runtime::Unknown) } })
            .contains("a listed value is a unit variant")
    );
    assert_eq!(
        error(quote! { struct A<T> { a: T } }),
        "apigen's derives take no generic parameters"
    );
    assert_eq!(
        error(quote! { #[wire(flatten)] struct A { a: i64 } }),
        "`#[wire(flatten)]` does not apply to a struct"
    );
}

#[test]
fn checks_expand_in_the_order_written_and_refusals_first() {
    let input: syn::DeriveInput = syn::parse2(quote! {
        struct NewPet {
            #[check(read_only)]
            id: Option<i64>,
            #[wire(rename = "petName")]
            #[check(length(min = 1, max = 100), pattern = "^[a-z]+$")]
            pet_name: String,
            #[check(required, range(above = 0, max = 10))]
            weight: Option<f64>,
            #[check(items(max = 3), unique, each(valid))]
            tags: Vec<Tag>,
            #[check(not_in("x", "y"))]
            code: runtime::Nullable<String>,
            #[check(one_of(-1, 2))]
            step: i32,
            #[wire(additional)]
            #[check(values(email))]
            additional_properties: std::collections::BTreeMap<String, String>,
        }
    })
    .unwrap();
    let out = crate::validate::validate(&input).unwrap().to_string();
    let at = |needle: &str| {
        out.find(needle)
            .unwrap_or_else(|| panic!("no `{needle}` in {out}"))
    };
    assert!(at("\"is read-only\"") < at("\"petName\""));
    assert!(at("check_length") < at("check_pattern"));
    assert!(at("\"is required\"") < at("check_range"));
    assert!(out.contains("runtime :: Bound :: Excluded (0)"));
    assert!(out.contains("runtime :: Bound :: Included (10)"));
    assert!(out.contains("runtime :: check_some (& self . weight"));
    assert!(out.contains("runtime :: check_each (& self . tags , runtime :: Validate :: validate)"));
    assert!(out.contains("runtime :: check_nullable (& self . code"));
    assert!(out.contains("check_not_one_of :: < str > (value , & [\"x\" , \"y\"])"));
    assert!(out.contains("check_one_of (& self . step , & [& - 1 , & 2])"));
    // The additional properties are the object's own: no name of theirs.
    assert!(out.contains("runtime :: check_values (& self . additional_properties"));
    assert!(!out.contains("\"additional_properties\""));
}

#[test]
fn a_union_is_read_by_its_tag_or_by_trying_its_variants_in_tiers() {
    let m = model(quote! {
        #[wire(tag = "kind", optional_tag, one_of)]
        enum Shape {
            #[wire(tag("circle", "round"), object(required("r")))]
            Circle(Circle),
            #[wire(tag("square"), implicit_tag("Square"))]
            Square(Box<Square>),
            #[wire(array)]
            Many(Vec<Circle>),
            #[wire(text)]
            Name(String),
        }
    })
    .unwrap();
    let Shape::Union(u) = &m.shape else {
        panic!("a union")
    };
    assert_eq!(u.tag.as_deref(), Some("kind"));
    assert!(u.optional_tag && u.one_of);
    let tiers: Vec<u8> = u.variants.iter().map(|v| v.tier).collect();
    assert_eq!(tiers, [0, 0, 1, 2]);
    assert!(u.variants[1].boxed);
    assert_eq!(u.variants[1].implicit, ["Square"]);
    let out = crate::union::deserialize(&m.ident, u).to_string();
    // Absent, the tag leaves the value to its structure; present, it names
    // the variant, and the message lists the values the document offers.
    assert!(out.find("value . get (\"kind\") . is_none ()") < out.find("tag_of"));
    assert!(out.contains("\"circle\" | \"round\" =>"));
    assert!(out.contains("expected `circle`, `round`, `square`"));
    // In text, an array is tried after the others, free text last.
    let tried = |name: &str| {
        out.find(&format!("accepted . push ((\"{name}\""))
            .unwrap_or_else(|| panic!("{name} is not tried in {out}"))
    };
    assert!(tried("Circle") < tried("Many") && tried("Many") < tried("Name"));
    assert!(out.contains("runtime :: fits_object (& value , & [\"r\"] , None)"));

    // A fallback reads what the tag does not name, and what has none.
    let m = model(quote! {
        #[wire(tag = "kind")]
        enum Shape {
            #[wire(tag("circle"))]
            Circle(Circle),
            #[wire(tag("square"), fallback)]
            Square(Box<Square>),
        }
    })
    .unwrap();
    let Shape::Union(u) = &m.shape else {
        panic!("a union")
    };
    let out = crate::union::deserialize(&m.ident, u).to_string();
    assert!(out.contains("tag_of (& value , \"kind\") . ok ()"));
    assert!(out.contains("Some (\"circle\") =>"));
    assert!(out.contains("_ => runtime :: read_variant (& value , source) . map (| v | Self :: Square (Box :: new (v)))"));
}

#[test]
fn an_enum_holding_values_is_a_union_and_one_keeping_unknown_values_a_string_enum() {
    let union = model(quote! { enum U { A(A), B(B) } }).unwrap();
    assert!(matches!(union.shape, Shape::Union(_)));
    let strings = model(quote! { enum S { A, #[wire(unknown)] U(runtime::Unknown) } }).unwrap();
    assert!(matches!(strings.shape, Shape::Enum(_)));
    assert_eq!(
        error(quote! { enum U { #[wire(bogus)] A(A) } }),
        "unknown `wire` key `bogus`"
    );
}
