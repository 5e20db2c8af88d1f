//! The Notes API's handlers: one implementation of the route trait, served
//! on axum (`src/main.rs`) or actix-web (`src/bin/notes-on-actix.rs`).

use notes_api::operations::{
    CreateNoteRequest, CreateNoteResponse, ErrorResponse, GetNoteRequest, GetNoteResponse,
    ListNotesRequest, ListNotesResponse,
};
use notes_api::{glue, models, runtime};
use std::sync::Mutex;

/// The notes, kept in memory.
#[derive(Default)]
pub struct Notes {
    notes: Mutex<Vec<models::Note>>,
}

impl notes_api::operations::Notes for Notes {
    async fn list_notes(
        &self,
        _request: ListNotesRequest,
        _context: runtime::RequestContext,
    ) -> Result<ListNotesResponse, ErrorResponse> {
        let notes = self.notes.lock().unwrap();
        Ok(ListNotesResponse::Ok(notes.clone()))
    }

    async fn create_note(
        &self,
        request: CreateNoteRequest,
        _context: runtime::RequestContext,
    ) -> Result<CreateNoteResponse, ErrorResponse> {
        // The glue has checked the body against the spec: `text` is there,
        // 1 to 500 characters.
        let mut notes = self.notes.lock().unwrap();
        let note = models::Note {
            id: notes.len() as i64 + 1,
            text: request.body.text,
        };
        notes.push(note.clone());
        Ok(CreateNoteResponse::Created(note))
    }

    async fn get_note(
        &self,
        request: GetNoteRequest,
        _context: runtime::RequestContext,
    ) -> Result<GetNoteResponse, ErrorResponse> {
        let notes = self.notes.lock().unwrap();
        Ok(match notes.iter().find(|n| n.id == request.note_id) {
            Some(note) => GetNoteResponse::Ok(note.clone()),
            None => GetNoteResponse::NotFound(models::Error {
                message: format!("no note {}", request.note_id),
            }),
        })
    }
}

/// What the glue sends when it refuses a request before a handler runs (a
/// body that breaks the spec, an unknown path): the API's `Error`, with
/// the refusal's status.
impl glue::Rejections for Notes {
    fn reject(&self, rejection: runtime::Rejection) -> ErrorResponse {
        let status = rejection.status();
        let message = match rejection.kind {
            // Meant for the logs, not for the caller.
            runtime::RejectionKind::Internal => "internal error".to_string(),
            _ => rejection.message,
        };
        ErrorResponse::new(status, models::Error { message })
    }
}
