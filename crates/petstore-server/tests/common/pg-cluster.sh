#!/bin/sh
# A private PostgreSQL cluster for tests and chores, owned by this script:
# initdb in DIR, TLS certificates from a test authority, the server started
# on 127.0.0.1:PORT; `ready` on stdout; then it waits for its standard input
# (the lifeline) to close, however its owner ended, and stops the server
# (continuing it first if a test froze it) and removes DIR.
#
# Arguments: run-as prefix (`runuser -u postgres --` as root, or empty), the
# PostgreSQL bin directory, DIR, PORT. Used by the end-to-end tests
# (`postgres.rs` beside this file) and by `cargo xtask` (`xtask/src/postgres.rs`).
set -u
AS="$1"; BIN="$2"; DIR="$3"; PORT="$4"
if ! $AS "$BIN/initdb" -D "$DIR/data" -A trust -U postgres -E UTF8 --no-sync >"$DIR/initdb.log" 2>&1; then
    echo "initdb failed: $(tail -n 5 "$DIR/initdb.log")"; rm -rf "$DIR"; exit 1
fi
# TLS is offered, not required: a test authority signs the certificate for
# 127.0.0.1, and a second authority, which signed nothing, is the wrong one.
EC="-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes"
printf 'subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\n' >"$DIR/server.ext"
if ! { openssl req -x509 $EC -days 2 -subj "/CN=petstore test authority" \
           -keyout "$DIR/ca.key" -out "$DIR/ca.crt" \
       && openssl req -x509 $EC -days 2 -subj "/CN=another authority" \
           -keyout "$DIR/other-ca.key" -out "$DIR/other-ca.crt" \
       && openssl req $EC -subj /CN=127.0.0.1 -keyout "$DIR/server.key" -out "$DIR/server.csr" \
       && openssl x509 -req -in "$DIR/server.csr" -CA "$DIR/ca.crt" -CAkey "$DIR/ca.key" \
           -CAcreateserial -days 2 -extfile "$DIR/server.ext" -out "$DIR/server.crt"
     } >"$DIR/openssl.log" 2>&1; then
    echo "openssl failed: $(tail -n 5 "$DIR/openssl.log")"; rm -rf "$DIR"; exit 1
fi
chmod 600 "$DIR/server.key"
if [ -n "$AS" ]; then chown postgres:postgres "$DIR/server.key" "$DIR/server.crt"; fi
# The settings go to the configuration file, so that a test can stop and
# start the server with a bare `pg_ctl`.
cat >>"$DIR/data/postgresql.conf" <<CONF
port = $PORT
unix_socket_directories = '$DIR'
listen_addresses = '127.0.0.1'
max_connections = 400
fsync = off
full_page_writes = off
ssl = on
ssl_cert_file = '$DIR/server.crt'
ssl_key_file = '$DIR/server.key'
CONF
if ! $AS "$BIN/pg_ctl" -D "$DIR/data" -l "$DIR/server.log" -w -t 60 start >/dev/null 2>&1; then
    echo "pg_ctl start failed: $(tail -n 5 "$DIR/server.log")"; rm -rf "$DIR"; exit 1
fi
echo ready
read _ignored
# A server a test froze would not stop: continue it and its children.
if PID=$(head -n 1 "$DIR/data/postmaster.pid" 2>/dev/null); then
    for f in $(grep -l "^PPid:[[:space:]]*$PID\$" /proc/[0-9]*/status 2>/dev/null); do
        f=${f#/proc/}; kill -CONT "${f%/status}" 2>/dev/null
    done
    kill -CONT "$PID" 2>/dev/null
fi
$AS "$BIN/pg_ctl" -D "$DIR/data" -m immediate stop >/dev/null 2>&1
rm -rf "$DIR"
