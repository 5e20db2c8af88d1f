#!/bin/bash
# A private PostgreSQL 15 for measurements, with pg_stat_statements: start,
# db NAME (fresh), sql NAME QUERY, stop. Needs root (initdb runs as postgres).
set -e
D=${PG_PRIVATE_DIR:-/tmp/petstore-pg-private}
BIN=/usr/lib/postgresql/15/bin
case "$1" in
start)
  rm -rf $D; mkdir -p $D; chown postgres $D
  runuser -u postgres -- $BIN/initdb -D $D/data -A trust -U postgres >/dev/null
  runuser -u postgres -- $BIN/pg_ctl -D $D/data -l $D/log -w -o "-p 55432 -k $D -c listen_addresses=127.0.0.1 -c max_connections=200 -c shared_preload_libraries=pg_stat_statements" start >/dev/null
  ;;
db)
  runuser -u postgres -- $BIN/psql -h 127.0.0.1 -p 55432 -U postgres -qc "DROP DATABASE IF EXISTS $2" -c "CREATE DATABASE $2"
  runuser -u postgres -- $BIN/psql -h 127.0.0.1 -p 55432 -U postgres -d $2 -qc "CREATE EXTENSION pg_stat_statements"
  ;;
sql)
  runuser -u postgres -- $BIN/psql -h 127.0.0.1 -p 55432 -U postgres -d $2 -Atc "$3"
  ;;
stop)
  runuser -u postgres -- $BIN/pg_ctl -D $D/data -w stop >/dev/null
  ;;
esac
