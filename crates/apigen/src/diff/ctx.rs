//! Where a comparison stands: the direction, the place (the family of the
//! rules that report it) and, for messages, what holds the value compared.

use super::rules::Place;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Dir {
    Request,
    Response,
}

/// Where a comparison stands: the direction, the place of what is compared
/// (a request parameter, a response's property, ...: the family of the
/// rules that report it), and for messages what holds it (`the request
/// body`) and the path within.
#[derive(Debug, Clone)]
pub(super) struct Ctx {
    pub(super) dir: Dir,
    /// The value is the data of a stream's events, whose kinds are the
    /// shapes of its union.
    pub(super) events: bool,
    pub(super) place: Place,
    pub(super) root: String,
    /// `address.city`, `tags[]`; empty for the root itself.
    pub(super) path: String,
    pub(super) what: String,
}

impl Ctx {
    pub(super) fn new(dir: Dir, place: Place, root: String) -> Ctx {
        Ctx {
            dir,
            events: false,
            place,
            what: root.clone(),
            root,
            path: String::new(),
        }
    }

    /// The context of an event stream's data.
    pub(super) fn of_events(mut self) -> Ctx {
        self.events = true;
        self
    }

    pub(super) fn at(&self, place: Place, path: String) -> Ctx {
        Ctx {
            dir: self.dir,
            events: false,
            place,
            what: format!("property `{path}` of {}", self.root),
            root: self.root.clone(),
            path,
        }
    }

    pub(super) fn property(&self, name: &str) -> Ctx {
        let place = match self.dir {
            Dir::Request => Place::RequestProperty,
            Dir::Response => Place::ResponseProperty,
        };
        let path = if self.path.is_empty() {
            name.to_string()
        } else {
            format!("{}.{name}", self.path)
        };
        self.at(place, path)
    }

    pub(super) fn items(&self) -> Ctx {
        if self.path.is_empty() {
            Ctx {
                what: format!("the items of {}", self.root),
                ..self.clone()
            }
        } else {
            self.at(self.place, format!("{}[]", self.path))
        }
    }
}
