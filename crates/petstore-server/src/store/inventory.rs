//! Inventory: one entry per pet, whose status is always its pet's. Stock
//! reaching zero makes an available pet sold; stock rising above zero makes
//! a sold pet available; a pending pet stays pending.

use super::catalog::{lock_pet, set_status};
use super::conn::{args, Columns, FromRow};
use super::events::{record, Change};
use super::{corrupt, listed, parse_status, Db, Filtered, Listed, Page, Result};
use crate::error::ApiError;
use petstore_api::models::{InventoryItem, PetStatus};

impl Db {
    pub async fn inventory_item(&self, pet_id: i64) -> Result<InventoryItem> {
        self.read(async |c| {
            c.query_opt(
                "SELECT i.pet_id, i.quantity, p.status FROM inventory i JOIN pets p ON p.id = i.pet_id WHERE i.pet_id = $1",
                args![pet_id],
            )
            .await?
            .map(|r| InventoryItem::from_row(&r))
            .transpose()?
            .ok_or_else(|| ApiError::not_found(format_args!("inventory entry of pet {pet_id}")))
        })
        .await
    }

    pub async fn list_inventory(
        &self,
        status: Option<PetStatus>,
        page: Page,
    ) -> Result<Listed<InventoryItem>> {
        let mut q = Filtered::new(
            "SELECT i.pet_id, i.quantity, p.status FROM inventory i JOIN pets p ON p.id = i.pet_id WHERE i.pet_id > ",
            page,
        );
        if let Some(status) = status {
            q.and("p.status = ", status.as_str());
        }
        let items = self.read(async |c| q.fetch("i.pet_id", c).await).await?;
        Ok(listed(items, page))
    }

    /// Sets a pet's stock. Zero makes an available pet sold; above zero makes a
    /// sold pet available. A pending pet stays pending.
    pub async fn update_inventory(&self, pet_id: i64, quantity: i32) -> Result<InventoryItem> {
        self.write(async move |c| {
            let Some(status) = lock_pet(c, pet_id).await? else {
                return Err(ApiError::not_found(format_args!(
                    "inventory entry of pet {pet_id}"
                )));
            };
            c.execute(
                "UPDATE inventory SET quantity = $1 WHERE pet_id = $2",
                args![quantity, pet_id],
            )
            .await?;
            let next = match (&status, quantity) {
                (PetStatus::Available, 0) => PetStatus::Sold,
                (PetStatus::Sold, q) if q > 0 => PetStatus::Available,
                (s, _) => s.clone(),
            };
            if next != status {
                set_status(c, pet_id, &next).await?;
            }
            record(c, &[Change::Stock { pet_id }], chrono::Utc::now()).await?;
            Ok(InventoryItem {
                pet_id,
                quantity,
                status: next,
            })
        })
        .await
    }
}

impl FromRow for InventoryItem {
    fn from_row(r: &impl Columns) -> Result<Self> {
        Ok(InventoryItem {
            pet_id: r.int(0)?,
            quantity: i32::try_from(r.int(1)?).map_err(corrupt)?,
            status: parse_status(r.text(2)?)?,
        })
    }
}
