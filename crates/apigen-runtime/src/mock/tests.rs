use super::super::mock_values::{integer, number, string};
use super::*;

const NAME: Bounds = Bounds::NONE
    .min_length(3)
    .max_length(8)
    .pattern("^[a-z]+-[0-9]{2}$");

#[test]
fn write_only_properties_are_left_out_of_examples_and_made_values() {
    static SECRET: [Type; 1] = [Type::of(Schema::Object(&[
        Field::required("user", Schema::String(Bounds::NONE)),
        Field::required("password", Schema::String(Bounds::NONE)).write_only(),
    ]))];
    let maker = Maker::new(&SECRET, false);
    let example = maker.example(Some(r#"{"user": "a", "password": "b"}"#), &Schema::Named(0));
    assert_eq!(example, Some(serde_json::json!({"user": "a"})));
    let made = Maker::new(&SECRET, true).value(&Schema::Named(0), &mut Rng(1), 0);
    assert!(
        made.get("user").is_some() && made.get("password").is_none(),
        "{made}"
    );
}

#[test]
fn a_discriminator_the_object_declares_too_names_the_variant_made() {
    static LABELED: [Type; 4] = [
        Type::of(Schema::Object(&[
            Field::required("variant", Schema::Named(1)).flatten(),
            Field::required("kind", Schema::Enum(&["circle", "square"])),
        ])),
        Type::of(Schema::Union(
            Some("kind"),
            &[
                Variant::new(&["circle"], Schema::Named(2)),
                Variant::new(&["square"], Schema::Named(3)),
            ],
        )),
        Type::of(Schema::Object(&[Field::required(
            "radius",
            Schema::Integer(Bounds::NONE),
        )])),
        Type::of(Schema::Object(&[Field::required(
            "side",
            Schema::Integer(Bounds::NONE),
        )])),
    ];
    let maker = Maker::new(&LABELED, true);
    let mut kinds = std::collections::BTreeSet::new();
    for seed in 0..40 {
        let made = maker.value(&Schema::Named(0), &mut Rng(seed), 0);
        let kind = made["kind"].as_str().unwrap_or_default().to_string();
        let shape = if kind == "circle" { "radius" } else { "side" };
        assert!(made.get(shape).is_some(), "{made}");
        kinds.insert(kind);
    }
    assert_eq!(kinds.len(), 2, "{kinds:?}");
}

#[test]
fn strings_keep_their_pattern_and_length() {
    for seed in 0..200 {
        let made = string(&NAME, &mut Rng(seed));
        assert!(
            fits(&[], &Schema::String(NAME), &Value::String(made.clone())),
            "{made}"
        );
    }
}

#[test]
fn an_integer_enum_is_kept() {
    let b = Bounds::NONE.one_of(&[2, 4, 8]);
    for seed in 0..50 {
        let i = integer(&b, &mut Rng(seed));
        assert!([2, 4, 8].contains(&i), "{i}");
    }
    assert!(!fits(&[], &Schema::Integer(b), &serde_json::json!(3)));
    assert!(fits(&[], &Schema::Integer(b), &serde_json::json!(4)));
}

#[test]
fn numbers_keep_their_bounds() {
    let b = Bounds::NONE.minimum(1.0, false).maximum(5.0, true);
    for seed in 0..200 {
        let mut rng = Rng(seed);
        let i = integer(&b, &mut rng);
        assert!((1..5).contains(&i), "{i}");
        let x = number(&b, &mut rng).as_f64().unwrap();
        assert!((1.0..5.0).contains(&x), "{x}");
    }
}

static TYPES: [Type; 1] = [Type::of(Schema::Object(&[
    Field::required("name", Schema::String(NAME)).example("\"no\""),
    Field::optional("children", Schema::Array(&Schema::Named(0), Bounds::NONE)),
]))];

#[test]
fn prefer_reads_each_control_in_either_separator() {
    let request = |prefer: &str| {
        let (parts, ()) = http::Request::get("/")
            .header("Prefer", prefer)
            .body(())
            .unwrap()
            .into_parts();
        super::RequestContext::new(parts, Vec::new())
    };
    let prefer = Prefer::read(&request("code=404; example=\"dog\", dynamic=TRUE, wait=5")).unwrap();
    assert_eq!(prefer.code, Some(404));
    assert_eq!(prefer.example.as_deref(), Some("dog"));
    assert!(prefer.dynamic);
    assert_eq!(
        Prefer::read(&request("code=teapot")).unwrap_err().kind,
        RejectionKind::BadRequest
    );
}

#[test]
fn a_code_is_answered_by_its_own_response_its_range_or_default() {
    let responses = [
        Response::new(Status::Code(200)),
        Response::new(Status::Range(4)),
        Response::new(Status::Default),
    ];
    assert_eq!(choose(&responses, 200), Some((0, 200)));
    assert_eq!(choose(&responses, 404), Some((1, 404)));
    assert_eq!(choose(&responses, 503), Some((2, 503)));
    assert_eq!(choose(&responses[..2], 503), None);
    assert_eq!(first(&responses[1..]), (0, 400));
}

static WRAPPED: [Type; 1] = [Type::of(Schema::Object(&[Field::required(
    "error",
    Schema::Object(&[
        Field::required("code", Schema::Integer(Bounds::NONE)),
        Field::required("message", Schema::String(Bounds::NONE)),
    ]),
)]))];

/// A refusal's message goes where the error schema has a place for it,
/// inside the object it wraps it in too; a code of the wrong type
/// does not.
#[test]
fn refusals_say_why_where_the_schema_lets_them() {
    let status = StatusCode::UNPROCESSABLE_ENTITY;
    let body = error_value(
        &WRAPPED,
        &Schema::Named(0),
        status,
        "bad",
        "`limit` is too big",
    );
    assert_eq!(body["error"]["message"], "`limit` is too big", "{body}");
    assert!(body["error"]["code"].is_i64(), "{body}");
    static DETAILED: [Type; 1] = [Type::of(Schema::Object(&[Field::required(
        "detail",
        Schema::Object(&[
            Field::required("error_code", Schema::String(Bounds::NONE)),
            Field::required("message", Schema::String(Bounds::NONE)),
        ]),
    )]))];
    let body = error_value(&DETAILED, &Schema::Named(0), status, "bad", "why");
    assert_eq!(body["detail"]["message"], "why", "{body}");
    static CAPITALIZED: [Type; 1] = [Type::of(Schema::Object(&[
        Field::optional("ErrorNumber", Schema::Integer(Bounds::NONE)),
        Field::optional("Message", Schema::String(Bounds::NONE)),
    ]))];
    let body = error_value(&CAPITALIZED, &Schema::Named(0), status, "bad", "why");
    assert_eq!(body["Message"], "why", "{body}");
    let plain = error_value(&[], &Schema::Any, status, "bad", "why");
    assert_eq!(
        plain,
        serde_json::json!({"code": "bad", "message": "why", "status": 422})
    );
}

/// A recursive type ends, and an example that breaks its field's
/// bounds is not used.
#[test]
fn recursive_types_end_and_bad_examples_are_left_out() {
    let value = Maker::new(&TYPES, false).value(&Schema::Named(0), &mut Rng(7), 0);
    assert!(fits(&TYPES, &Schema::Named(0), &value), "{value}");
    assert_ne!(value["name"], "no");
    let text = value.to_string();
    assert!(text.matches("children").count() >= 2, "{text}");
}

#[test]
fn the_token_endpoint_issues_what_the_mock_takes_and_rotates_refresh_tokens() {
    let endpoint = TokenEndpoint::new(&["/oauth/token"], &Credentials::only(["tok-1", "tok-2"]));
    let (status, body) = endpoint.answer(b"grant_type=client_credentials&scope=a+b");
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["access_token"], "tok-1");
    assert_eq!(body["scope"], "a b");
    assert!(
        body.get("refresh_token").is_none(),
        "none by client credentials"
    );
    let (_, first) = endpoint.answer(b"grant_type=refresh_token&refresh_token=kept");
    let (_, second) = endpoint.answer(b"grant_type=refresh_token&refresh_token=kept");
    assert_ne!(first["refresh_token"], second["refresh_token"], "rotated");
    for (form, error) in [
        (&b"grant_type=password"[..], "unsupported_grant_type"),
        (b"grant_type=refresh_token", "invalid_request"),
        (b"", "invalid_request"),
    ] {
        let (status, body) = endpoint.answer(form);
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert_eq!(body["error"], error, "{body}");
    }
    let any = TokenEndpoint::new(&[], &Credentials::any()).at("/token");
    assert_eq!(any.paths(), ["/token"]);
    assert_eq!(
        any.answer(b"grant_type=client_credentials").1["access_token"],
        "mock-access-token"
    );
}
