//! A call with the generated client: `cargo run -p notes-server --bin notes-client`.

use notes_api::client::Client;
use notes_api::models::NewNote;
use notes_api::operations::{CreateNoteRequest, CreateNoteResponse};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let base = std::env::var("NOTES_URL").unwrap_or_else(|_| "http://127.0.0.1:3000/v1".into());
    let client = Client::new(&base)?;
    let request = CreateNoteRequest {
        body: NewNote {
            text: "Buy milk".into(),
        },
    };
    match client.create_note(request).await?.into_inner() {
        CreateNoteResponse::Created(note) => println!("note {}: {}", note.id, note.text),
        CreateNoteResponse::BadRequest(error) => println!("refused: {}", error.message),
    }
    Ok(())
}
