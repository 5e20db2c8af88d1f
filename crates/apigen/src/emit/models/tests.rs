use super::*;
use crate::ir::{Shape, Ty};

#[test]
fn read_only_fields_are_optional_even_when_required() {
    let f = Field {
        wire: "id".into(),
        pointer: "#/components/schemas/Pet/properties/id".into(),
        rust: "id".into(),
        shape: Shape::new(Ty::I64),
        required: true,
        doc: None,
        default: None,
        example: None,
        read_only: true,
        write_only: false,
        deprecated: false,
        boxed: false,
        flatten: false,
        shared: false,
    };
    assert!(is_optional(&f));
    assert_eq!(field_type(&f), "Option<i64>");
}
