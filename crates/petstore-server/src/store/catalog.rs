//! Categories and pets: a pet names a category that exists, a category with
//! pets cannot be deleted, and a pet's inventory entry is created with it.

use super::conn::{args, Columns, Conn, FromRow};
use super::events::{record, Change};
use super::idempotency::Idempotency;
use super::{listed, parse_status, Db, Filtered, Listed, Page, Result};
use crate::error::ApiError;
use petstore_api::models::{Category, NewCategory, NewPet, Pet, PetStatus};

/// `SELECT` of pets' columns, in the order [`Pet`]'s [`FromRow`] reads
/// them; a literal, for `concat!`.
macro_rules! select_pets {
    () => {
        "SELECT id, name, category_id, status FROM pets"
    };
}
pub(super) use select_pets;

/// Filters of `listPets`.
#[derive(Debug, Default, Clone)]
pub struct PetFilter {
    pub status: Option<PetStatus>,
    pub category_id: Option<i64>,
    pub ids: Option<Vec<i64>>,
}

impl Db {
    pub async fn create_category(
        &self,
        new: &NewCategory,
        idem: Option<&Idempotency>,
    ) -> Result<Category> {
        let new = new.clone();
        self.write_idempotent(idem, async move |c| {
            let id = c
                .insert(
                    "INSERT INTO categories (name, description) VALUES ($1, $2)",
                    args![&new.name, &new.description],
                )
                .await?;
            let category = Category {
                id,
                name: new.name,
                description: new.description,
            };
            Ok(category)
        })
        .await
    }

    pub async fn category(&self, id: i64) -> Result<Category> {
        self.read(async |c| {
            c.query_opt(
                "SELECT id, name, description FROM categories WHERE id = $1",
                args![id],
            )
            .await?
            .map(|r| Category::from_row(&r))
            .transpose()?
            .ok_or_else(|| ApiError::not_found(format_args!("category {id}")))
        })
        .await
    }

    pub async fn list_categories(&self, page: Page) -> Result<Listed<Category>> {
        let q = Filtered::new(
            "SELECT id, name, description FROM categories WHERE id > ",
            page,
        );
        let items = self.read(async |c| q.fetch("id", c).await).await?;
        Ok(listed(items, page))
    }

    pub async fn delete_category(&self, id: i64) -> Result<()> {
        self.write(async move |c| {
            if !lock_category(c, id).await? {
                return Err(ApiError::not_found(format_args!("category {id}")));
            }
            let pets = c
                .query_one(
                    "SELECT count(*) FROM pets WHERE category_id = $1",
                    args![id],
                )
                .await?
                .int(0)?;
            if pets > 0 {
                return Err(ApiError::conflict(
                    "category_in_use",
                    format!("category {id} still has {pets} pet(s)"),
                ));
            }
            c.execute("DELETE FROM categories WHERE id = $1", args![id])
                .await?;
            Ok(())
        })
        .await
    }

    /// Creates a pet and its inventory entry, with a stock of 1.
    pub async fn create_pet(&self, new: &NewPet, idem: Option<&Idempotency>) -> Result<Pet> {
        let new = new.clone();
        self.write_idempotent(idem, async move |c| {
            let status = new.status.unwrap_or(PetStatus::Available);
            require_category(c, new.category_id).await?;
            let id = c
                .insert(
                    "INSERT INTO pets (name, category_id, status) VALUES ($1, $2, $3)",
                    args![&new.name, new.category_id, status.as_str()],
                )
                .await?;
            c.execute(
                "INSERT INTO inventory (pet_id, quantity) VALUES ($1, 1)",
                args![id],
            )
            .await?;
            record(c, &[Change::Stock { pet_id: id }], chrono::Utc::now()).await?;
            let pet = Pet {
                id,
                name: new.name,
                category_id: new.category_id,
                status: Some(status),
            };
            Ok(pet)
        })
        .await
    }

    /// A pet; on PostgreSQL read in rounds with the other requests' pets
    /// (`pet_reads.rs`).
    pub async fn pet(&self, id: i64) -> Result<Pet> {
        let found = match self.pet_reads() {
            Some(reads) => self.pet_in_round(reads, id).await?,
            None => {
                self.read(async |c| {
                    c.query_opt(concat!(select_pets!(), " WHERE id = $1"), args![id])
                        .await?
                        .map(|r| Pet::from_row(&r))
                        .transpose()
                })
                .await?
            }
        };
        found.ok_or_else(|| ApiError::not_found(format_args!("pet {id}")))
    }

    pub async fn list_pets(&self, filter: &PetFilter, page: Page) -> Result<Listed<Pet>> {
        let mut q = Filtered::new(concat!(select_pets!(), " WHERE id > "), page);
        if let Some(status) = &filter.status {
            q.and("status = ", status.as_str());
        }
        if let Some(category) = filter.category_id {
            q.and("category_id = ", category);
        }
        if let Some(ids) = &filter.ids {
            q.and_in("id", ids);
        }
        let pets = self.read(async |c| q.fetch("id", c).await).await?;
        Ok(listed(pets, page))
    }

    /// Replaces a pet's fields; a status given here applies to its inventory
    /// entry too, since the entry's status is the pet's.
    pub async fn replace_pet(&self, id: i64, new: &NewPet) -> Result<Pet> {
        let new = new.clone();
        self.write(async move |c| {
            let Some(current) = lock_pet(c, id).await? else {
                return Err(ApiError::not_found(format_args!("pet {id}")));
            };
            require_category(c, new.category_id).await?;
            let status = new.status.unwrap_or(current);
            c.execute(
                "UPDATE pets SET name = $1, category_id = $2, status = $3 WHERE id = $4",
                args![&new.name, new.category_id, status.as_str(), id],
            )
            .await?;
            Ok(Pet {
                id,
                name: new.name,
                category_id: new.category_id,
                status: Some(status),
            })
        })
        .await
    }

    /// Deletes a pet and its inventory entry, unless it has incomplete orders.
    pub async fn delete_pet(&self, id: i64) -> Result<()> {
        self.write(async move |c| {
            if lock_pet(c, id).await?.is_none() {
                return Err(ApiError::not_found(format_args!("pet {id}")));
            }
            let open = c
                .query_one(
                    "SELECT count(*) FROM orders WHERE pet_id = $1 AND complete = 0",
                    args![id],
                )
                .await?
                .int(0)?;
            if open > 0 {
                return Err(ApiError::conflict(
                    "pet_has_open_orders",
                    format!("pet {id} has {open} incomplete order(s)"),
                ));
            }
            c.execute("DELETE FROM pets WHERE id = $1", args![id])
                .await?;
            Ok(())
        })
        .await
    }
}

/// Whether the category exists; on PostgreSQL its row stays locked until the
/// transaction ends, so that it cannot be deleted (or a pet added to it)
/// meanwhile.
pub(super) async fn lock_category(c: &mut Conn<'_>, id: i64) -> Result<bool> {
    let sql = format!(
        "SELECT id FROM categories WHERE id = $1{}",
        c.backend().for_update()
    );
    Ok(c.query_opt(&sql, args![id]).await?.is_some())
}

/// 422 unless the category exists (locked as by [`lock_category`]).
pub(super) async fn require_category(c: &mut Conn<'_>, id: i64) -> Result<()> {
    if lock_category(c, id).await? {
        return Ok(());
    }
    Err(ApiError::unprocessable(
        "unknown_category",
        format!("category {id} does not exist"),
    ))
}

/// The pet's status, if it exists; on PostgreSQL its row stays locked until
/// the transaction ends.
pub(super) async fn lock_pet(c: &mut Conn<'_>, id: i64) -> Result<Option<PetStatus>> {
    let sql = format!(
        "SELECT status FROM pets WHERE id = $1{}",
        c.backend().for_update()
    );
    c.query_opt(&sql, args![id])
        .await?
        .map(|r| parse_status(r.text(0)?))
        .transpose()
}

pub(super) async fn set_status(c: &mut Conn<'_>, pet_id: i64, status: &PetStatus) -> Result<()> {
    c.execute(
        "UPDATE pets SET status = $1 WHERE id = $2",
        args![status.as_str(), pet_id],
    )
    .await?;
    Ok(())
}

impl FromRow for Category {
    fn from_row(r: &impl Columns) -> Result<Self> {
        Ok(Category {
            id: r.int(0)?,
            name: r.text(1)?.to_string(),
            description: r.opt_text(2)?.map(str::to_string),
        })
    }
}

impl FromRow for Pet {
    fn from_row(r: &impl Columns) -> Result<Self> {
        Ok(Pet {
            id: r.int(0)?,
            name: r.text(1)?.to_string(),
            category_id: r.int(2)?,
            status: Some(parse_status(r.text(3)?)?),
        })
    }
}
