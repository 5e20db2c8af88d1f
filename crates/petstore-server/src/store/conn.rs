//! One connection interface over both databases, so that every query and
//! every rule of the store is written once.
//!
//! SQL uses `$n` placeholders (PostgreSQL's; SQLite reads them as named
//! parameters, and they are bound here by their number), and values are the
//! two kinds the schema has: integers and text, either possibly null.

use super::Backend;
use crate::error::ApiError;
use sqlx::{Column, Row as _, TypeInfo};

type Result<T> = std::result::Result<T, ApiError>;

/// A bound or returned value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    Int(Option<i64>),
    Text(Option<String>),
}

impl From<i64> for Value {
    fn from(v: i64) -> Self {
        Value::Int(Some(v))
    }
}

impl From<i32> for Value {
    fn from(v: i32) -> Self {
        Value::Int(Some(i64::from(v)))
    }
}

impl From<u32> for Value {
    fn from(v: u32) -> Self {
        Value::Int(Some(i64::from(v)))
    }
}

/// Flags are stored as 0 and 1 on both databases.
impl From<bool> for Value {
    fn from(v: bool) -> Self {
        Value::Int(Some(i64::from(v)))
    }
}

impl From<Option<i64>> for Value {
    fn from(v: Option<i64>) -> Self {
        Value::Int(v)
    }
}

impl From<&str> for Value {
    fn from(v: &str) -> Self {
        Value::Text(Some(v.to_string()))
    }
}

impl From<String> for Value {
    fn from(v: String) -> Self {
        Value::Text(Some(v))
    }
}

impl From<&String> for Value {
    fn from(v: &String) -> Self {
        Value::Text(Some(v.clone()))
    }
}

impl From<Option<String>> for Value {
    fn from(v: Option<String>) -> Self {
        Value::Text(v)
    }
}

impl From<&Option<String>> for Value {
    fn from(v: &Option<String>) -> Self {
        Value::Text(v.clone())
    }
}

impl From<Option<&str>> for Value {
    fn from(v: Option<&str>) -> Self {
        Value::Text(v.map(str::to_string))
    }
}

/// The arguments of a statement: `args![a, b]`.
macro_rules! args {
    ($($value:expr),* $(,)?) => {
        &[$($crate::store::conn::Value::from($value)),*]
    };
}
pub(crate) use args;

/// A returned row.
#[derive(Debug, Clone)]
pub struct Row(Vec<Value>);

/// Typed access to the columns of a row, however the database returned it.
pub trait Columns {
    fn opt_int(&self, i: usize) -> Result<Option<i64>>;
    fn opt_text(&self, i: usize) -> Result<Option<&str>>;

    fn int(&self, i: usize) -> Result<i64> {
        self.opt_int(i)?
            .ok_or_else(|| internal(format_args!("column {i} is null")))
    }

    fn text(&self, i: usize) -> Result<&str> {
        self.opt_text(i)?
            .ok_or_else(|| internal(format_args!("column {i} is null")))
    }
}

/// A value read from the columns of one row. Generic over the row type, so
/// that reading a SQLite row in place compiles to direct calls.
pub trait FromRow: Sized {
    fn from_row(row: &impl Columns) -> Result<Self>;
}

impl Row {
    fn get(&self, i: usize) -> Result<&Value> {
        self.0
            .get(i)
            .ok_or_else(|| internal(format_args!("no column {i}")))
    }
}

impl Columns for Row {
    fn opt_int(&self, i: usize) -> Result<Option<i64>> {
        match self.get(i)? {
            Value::Int(v) => Ok(*v),
            Value::Text(None) => Ok(None),
            Value::Text(Some(t)) => Err(internal(format_args!(
                "column {i}: text `{t}`, not an integer"
            ))),
        }
    }

    fn opt_text(&self, i: usize) -> Result<Option<&str>> {
        match self.get(i)? {
            Value::Text(v) => Ok(v.as_deref()),
            Value::Int(None) => Ok(None),
            Value::Int(Some(n)) => Err(internal(format_args!("column {i}: integer {n}, not text"))),
        }
    }
}

/// A SQLite row read in place, without copying its values first.
impl Columns for rusqlite::Row<'_> {
    fn opt_int(&self, i: usize) -> Result<Option<i64>> {
        match self.get_ref(i)? {
            rusqlite::types::ValueRef::Null => Ok(None),
            rusqlite::types::ValueRef::Integer(v) => Ok(Some(v)),
            _ => Err(internal(format_args!("column {i} is not an integer"))),
        }
    }

    fn opt_text(&self, i: usize) -> Result<Option<&str>> {
        match self.get_ref(i)? {
            rusqlite::types::ValueRef::Null => Ok(None),
            rusqlite::types::ValueRef::Text(t) => {
                std::str::from_utf8(t).map(Some).map_err(internal)
            }
            _ => Err(internal(format_args!("column {i} is not text"))),
        }
    }
}

/// A connection (inside a transaction, for writes) of either database.
pub enum Conn<'a> {
    Sqlite(&'a mut rusqlite::Connection),
    Postgres(&'a mut sqlx::PgConnection),
}

impl Conn<'_> {
    pub fn backend(&self) -> Backend {
        match self {
            Conn::Sqlite(_) => Backend::Sqlite,
            Conn::Postgres(_) => Backend::Postgres,
        }
    }

    /// The PostgreSQL connection, for a statement only PostgreSQL runs
    /// (`what` names it in the error on SQLite).
    pub fn postgres(&mut self, what: &str) -> Result<&mut sqlx::PgConnection> {
        match self {
            Conn::Postgres(conn) => Ok(conn),
            Conn::Sqlite(_) => Err(ApiError::Internal(
                format!("{what} runs on PostgreSQL only").into(),
            )),
        }
    }

    /// Runs a statement and returns its rows.
    pub async fn query(&mut self, sql: &str, args: &[Value]) -> Result<Vec<Row>> {
        match self {
            Conn::Sqlite(conn) => sqlite_rows(conn, sql, args, owned_row),
            Conn::Postgres(conn) => {
                let rows = postgres_query(sql, args).fetch_all(&mut **conn).await?;
                rows.iter().map(postgres_row).collect()
            }
        }
    }

    /// Runs a statement and builds a `T` from each row as it is read.
    pub async fn query_as<T: FromRow>(&mut self, sql: &str, args: &[Value]) -> Result<Vec<T>> {
        match self {
            Conn::Sqlite(conn) => sqlite_rows(conn, sql, args, |row| T::from_row(row)),
            Conn::Postgres(_) => self
                .query(sql, args)
                .await?
                .iter()
                .map(T::from_row)
                .collect(),
        }
    }

    /// Runs a statement and returns its first row, if any.
    pub async fn query_opt(&mut self, sql: &str, args: &[Value]) -> Result<Option<Row>> {
        Ok(self.query(sql, args).await?.into_iter().next())
    }

    /// Runs a statement that returns exactly one row.
    pub async fn query_one(&mut self, sql: &str, args: &[Value]) -> Result<Row> {
        self.query_opt(sql, args)
            .await?
            .ok_or_else(|| internal(format_args!("no row from `{sql}`")))
    }

    /// Runs an `INSERT` of one row into a table keyed by an `id` column
    /// and returns the new row's id. On SQLite the id comes from the
    /// connection (`RETURNING` would cost a temporary table per insert).
    pub async fn insert(&mut self, sql: &str, args: &[Value]) -> Result<i64> {
        match self {
            Conn::Sqlite(conn) => {
                prepared(conn, sql, args)?.raw_execute()?;
                Ok(conn.last_insert_rowid())
            }
            Conn::Postgres(_) => self
                .query_one(&format!("{sql} RETURNING id"), args)
                .await?
                .int(0),
        }
    }

    /// Runs a statement that returns no rows; the number of rows it changed.
    pub async fn execute(&mut self, sql: &str, args: &[Value]) -> Result<u64> {
        match self {
            Conn::Sqlite(conn) => Ok(prepared(conn, sql, args)?.raw_execute()? as u64),
            Conn::Postgres(conn) => Ok(postgres_query(sql, args)
                .execute(&mut **conn)
                .await?
                .rows_affected()),
        }
    }
}

fn internal(what: impl std::fmt::Display) -> ApiError {
    ApiError::Internal(format!("storage: {what}").into())
}

/// The statement for `sql` (prepared once per connection), with each `$n`
/// bound to `args[n - 1]`.
fn prepared<'c>(
    conn: &'c rusqlite::Connection,
    sql: &str,
    args: &[Value],
) -> Result<rusqlite::CachedStatement<'c>> {
    let mut statement = conn.prepare_cached(sql)?;
    for index in 1..=statement.parameter_count() {
        let value = statement
            .parameter_name(index)
            .and_then(|name| name.strip_prefix('$')?.parse::<usize>().ok())
            .and_then(|n| args.get(n.checked_sub(1)?))
            .ok_or_else(|| internal(format_args!("parameter {index} has no `$n` argument")))?;
        match value {
            Value::Int(Some(v)) => statement.raw_bind_parameter(index, v)?,
            Value::Text(Some(v)) => statement.raw_bind_parameter(index, v.as_str())?,
            Value::Int(None) | Value::Text(None) => {
                statement.raw_bind_parameter(index, rusqlite::types::Null)?
            }
        }
    }
    Ok(statement)
}

/// Runs a statement and maps each row in place.
fn sqlite_rows<T>(
    conn: &rusqlite::Connection,
    sql: &str,
    args: &[Value],
    mut map: impl FnMut(&rusqlite::Row<'_>) -> Result<T>,
) -> Result<Vec<T>> {
    let mut statement = prepared(conn, sql, args)?;
    let mut rows = statement.raw_query();
    let mut out = Vec::new();
    while let Some(row) = rows.next()? {
        out.push(map(row)?);
    }
    Ok(out)
}

/// A copy of a SQLite row's values.
fn owned_row(row: &rusqlite::Row<'_>) -> Result<Row> {
    use rusqlite::types::ValueRef;
    (0..row.as_ref().column_count())
        .map(|i| {
            Ok(match row.get_ref(i)? {
                ValueRef::Null => Value::Int(None),
                ValueRef::Integer(v) => Value::Int(Some(v)),
                ValueRef::Text(t) => {
                    Value::Text(Some(std::str::from_utf8(t).map_err(internal)?.to_string()))
                }
                ValueRef::Real(_) | ValueRef::Blob(_) => {
                    return Err(internal(format_args!(
                        "column {i}: neither integer nor text"
                    )))
                }
            })
        })
        .collect::<Result<Vec<_>>>()
        .map(Row)
}

fn postgres_query<'q>(
    sql: &'q str,
    args: &'q [Value],
) -> sqlx::query::Query<'q, sqlx::Postgres, sqlx::postgres::PgArguments> {
    args.iter().fold(sqlx::query(sql), |query, arg| match arg {
        Value::Int(v) => query.bind(*v),
        Value::Text(v) => query.bind(v.as_deref()),
    })
}

pub(super) fn postgres_row(row: &sqlx::postgres::PgRow) -> Result<Row> {
    let values = row
        .columns()
        .iter()
        .map(|column| {
            let i = column.ordinal();
            Ok(match column.type_info().name() {
                "INT8" => Value::Int(row.try_get::<Option<i64>, _>(i)?),
                "INT4" => Value::Int(row.try_get::<Option<i32>, _>(i)?.map(i64::from)),
                "INT2" => Value::Int(row.try_get::<Option<i16>, _>(i)?.map(i64::from)),
                "BOOL" => Value::Int(row.try_get::<Option<bool>, _>(i)?.map(i64::from)),
                "TEXT" | "VARCHAR" | "BPCHAR" | "NAME" => {
                    Value::Text(row.try_get::<Option<String>, _>(i)?)
                }
                other => return Err(internal(format_args!("column {i}: type {other}"))),
            })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Row(values))
}
