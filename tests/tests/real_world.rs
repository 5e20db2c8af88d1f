//! The runtime the generator ships, exercised through the `real_world`
//! snapshot: forms and deepObject parameters decode into typed structs.

use petstore_tests::real_world::models::{
    CreateCustomerBody, CustomerTaxExempt, UploadDocumentBody, UploadDocumentBodyPurpose,
};
use petstore_tests::real_world::runtime::{form_tree, multipart_tree, FormValue, Query};
use serde::Deserialize;

/// A form body read as the server's glue reads one: strictly.
fn decode(form: &str) -> Result<CreateCustomerBody, serde_json::Error> {
    let pairs: Vec<(String, String)> = form_urlencoded::parse(form.as_bytes())
        .into_owned()
        .collect();
    let tree = form_tree(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())));
    apigen_runtime::__private::strictly(|| CreateCustomerBody::deserialize(FormValue::new(tree)))
}

#[test]
fn forms_decode_into_typed_structs() {
    let body = decode(
        "email=a%40b.c&balance=-42&tax_exempt=exempt&address[city]=Paris&expand[]=x&expand[]=y",
    )
    .unwrap();
    assert_eq!(body.email, "a@b.c");
    assert_eq!(body.balance, Some(-42));
    assert_eq!(body.tax_exempt, Some(CustomerTaxExempt::Exempt));
    assert_eq!(body.address.unwrap().city.as_deref(), Some("Paris"));
    assert_eq!(body.expand, Some(vec!["x".to_string(), "y".to_string()]));

    // Indexed arrays, and a single value where an array is expected.
    let body = decode("email=e&expand[1]=b&expand[0]=a").unwrap();
    assert_eq!(body.expand, Some(vec!["a".to_string(), "b".to_string()]));
    let body = decode("email=e&expand=only").unwrap();
    assert_eq!(body.expand, Some(vec!["only".to_string()]));
}

#[test]
fn forms_that_do_not_fit_are_refused() {
    assert!(decode("balance=1").is_err(), "email is required");
    assert!(decode("email=e&balance=lots").is_err());
    assert!(decode("email=e&tax_exempt=sometimes").is_err());
}

#[test]
fn deep_object_parameters() {
    #[derive(Debug, Deserialize, PartialEq)]
    struct Range {
        gte: Option<i64>,
        lte: Option<i64>,
    }
    let query = Query::parse("created[gte]=10&created[lte]=20&limit=3");
    assert_eq!(
        query.deep::<Range>("created").unwrap(),
        Some(Range {
            gte: Some(10),
            lte: Some(20)
        })
    );
    assert_eq!(query.deep::<Range>("missing").unwrap(), None);
    assert!(Query::parse("created[gte]=soon")
        .deep::<Range>("created")
        .is_err());
}

#[test]
fn multipart_uploads_decode_into_typed_structs() {
    let content_type = "multipart/form-data; boundary=XyZ";
    let mut body = Vec::new();
    body.extend_from_slice(
        b"--XyZ\r\nContent-Disposition: form-data; name=\"purpose\"\r\n\r\ninvoice\r\n",
    );
    body.extend_from_slice(
        b"--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.bin\"\r\nContent-Type: application/octet-stream\r\n\r\n",
    );
    body.extend_from_slice(&[0, 159, 146, 150, 13, 10]);
    body.extend_from_slice(b"\r\n--XyZ--\r\n");
    let (tree, json_parts) = multipart_tree(content_type, &body).unwrap();
    let upload = UploadDocumentBody::deserialize(FormValue::multipart(tree, json_parts)).unwrap();
    assert_eq!(upload.purpose, UploadDocumentBodyPurpose::Invoice);
    assert_eq!(upload.file.0, vec![0, 159, 146, 150, 13, 10]);
    // In JSON the same bytes are base64 text.
    assert_eq!(serde_json::to_value(&upload.file).unwrap(), "AJ+Slg0K");
    assert_eq!(upload.note, None);

    assert!(
        multipart_tree("multipart/form-data", &body).is_err(),
        "no boundary"
    );
    assert!(multipart_tree(content_type, b"--XyZ\r\nno headers").is_err());
}

#[test]
fn every_parameter_style_reads_into_its_type() {
    use petstore_tests::real_world::runtime::{styled, Style, ValueKind};
    use std::collections::BTreeMap;
    type Map = BTreeMap<String, i64>;
    let array = |raw: &str, style, explode| {
        styled::<Vec<i64>>(raw, "id", ValueKind::Array, style, explode, "id")
    };
    let object = |raw: &str, style, explode| {
        styled::<Map>(raw, "id", ValueKind::Object, style, explode, "id")
    };
    let want: Map = [("a".to_string(), 1), ("b".to_string(), 2)].into();
    assert_eq!(array("3,4,5", Style::Simple, false).unwrap(), [3, 4, 5]);
    assert_eq!(array(".3.4.5", Style::Label, true).unwrap(), [3, 4, 5]);
    assert_eq!(array(".3,4,5", Style::Label, false).unwrap(), [3, 4, 5]);
    assert_eq!(array(";id=3,4,5", Style::Matrix, false).unwrap(), [3, 4, 5]);
    assert_eq!(
        array(";id=3;id=4;id=5", Style::Matrix, true).unwrap(),
        [3, 4, 5]
    );
    assert_eq!(
        array("3 4 5", Style::SpaceDelimited, false).unwrap(),
        [3, 4, 5]
    );
    assert_eq!(
        array("3|4|5", Style::PipeDelimited, false).unwrap(),
        [3, 4, 5]
    );
    assert_eq!(object("a,1,b,2", Style::Simple, false).unwrap(), want);
    assert_eq!(object("a=1,b=2", Style::Simple, true).unwrap(), want);
    assert_eq!(object(".a=1.b=2", Style::Label, true).unwrap(), want);
    assert_eq!(object(";id=a,1,b,2", Style::Matrix, false).unwrap(), want);
    assert_eq!(object(";a=1;b=2", Style::Matrix, true).unwrap(), want);
    let scalar = |raw: &str, style| styled::<i64>(raw, "id", ValueKind::Scalar, style, false, "id");
    assert_eq!(scalar(";id=7", Style::Matrix).unwrap(), 7);
    assert_eq!(scalar(".7", Style::Label).unwrap(), 7);
    assert_eq!(scalar("7", Style::Simple).unwrap(), 7);
    assert!(array("3,x", Style::Simple, false).is_err());
}

/// A union beside properties, or reached through `allOf`, is a flattened field.
#[test]
fn unions_beside_properties_are_flattened() {
    use petstore_tests::unions::models::{Drawing, Payment, PaymentVariant, Shape};
    let payment: Payment = serde_json::from_str(r#"{"amount": 5, "iban": "DE00"}"#).unwrap();
    assert_eq!(payment.amount, 5);
    assert!(
        matches!(payment.variant, PaymentVariant::Object2(ref v) if v.iban == "DE00"),
        "{payment:?}"
    );
    let drawing: Drawing =
        serde_json::from_str(r#"{"kind": "circle", "radius": 2.0, "label": "sun"}"#).unwrap();
    assert_eq!(drawing.label.as_deref(), Some("sun"));
    assert!(matches!(drawing.variant, Shape::Circle(ref c) if c.radius == 2.0));
    let back = serde_json::to_value(&drawing).unwrap();
    assert_eq!(back["kind"], "circle");
    assert_eq!(back["label"], "sun");
}

#[test]
fn union_query_parameters_take_one_value_or_several() {
    use petstore_tests::parameters::models::GetItemTraits;
    let one: Option<GetItemTraits> = Query::parse("traits=rare").any("traits").unwrap();
    assert!(matches!(one, Some(GetItemTraits::String(_))), "{one:?}");
    let several: Option<GetItemTraits> = Query::parse("traits=rare&traits=cheap")
        .any("traits")
        .unwrap();
    assert!(
        matches!(several, Some(GetItemTraits::Array(ref v)) if v.len() == 2),
        "{several:?}"
    );
    assert!(Query::parse("traits=common")
        .any::<GetItemTraits>("traits")
        .is_err());
    assert_eq!(
        Query::parse("").any::<GetItemTraits>("traits").unwrap(),
        None
    );
}
