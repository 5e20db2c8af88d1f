"""Statements (round trips) PostgreSQL sees per request, by kind, for one
server binary: GET /v1/pets/{id} and POST /v1/store/orders, N each, sent one
at a time over one kept-alive connection, counted by pg_stat_statements.

    tests/measure/pg_private.sh start      # a private cluster on port 55432 (as root)
    python3 tests/measure/pg_roundtrips.py target/release/petstore-server rt 300
    tests/measure/pg_private.sh stop
"""
import http.client, json, os, subprocess, sys, time, re

PG = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pg_private.sh")

binary, db, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
url = f"postgres://postgres@127.0.0.1:55432/{db}"
subprocess.run([PG, "db", db], check=True, capture_output=True)
key = subprocess.run([binary, "--database-url", url, "keys", "create", "--plan", "enterprise",
                      "--per-minute", "100000000", "--per-day", "100000000"],
                     check=True, capture_output=True, text=True).stdout
key = re.search(r"psk_[0-9a-f]+", key).group(0)
server = subprocess.Popen([binary, "--listen", "127.0.0.1:0", "--database-url", url, "--workers", "1"],
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
for line in server.stdout:
    m = re.search(r"listening on http://([0-9.:]+)/v1", line)
    if m:
        address = m.group(1); break
host, port = address.split(":")
conn = http.client.HTTPConnection(host, int(port))
def call(method, path, body=None):
    headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
    conn.request(method, path, json.dumps(body) if body is not None else None, headers)
    r = conn.getresponse(); data = r.read()
    assert r.status < 300, (r.status, data)
    return json.loads(data) if data else None
cat = call("POST", "/v1/categories", {"name": "Dogs"})["id"]
pet = call("POST", "/v1/pets", {"name": "Rex", "categoryId": cat})["id"]
call("PATCH", f"/v1/inventory/{pet}", {"quantity": 1000000})
def measure(label, method, path, body):
    for _ in range(20): call(method, path, body)  # warm: keys cached, pool filled
    time.sleep(1.5)
    subprocess.run([PG, "sql", db, "select pg_stat_statements_reset()"], check=True, capture_output=True)
    t = time.time()
    for _ in range(n): call(method, path, body)
    elapsed = time.time() - t
    rows = subprocess.run([PG, "sql", db,
        "select calls, left(regexp_replace(query, '\\s+', ' ', 'g'), 70) from pg_stat_statements "
        "where query not like '%pg_stat_statements%' order by calls desc"],
        check=True, capture_output=True, text=True).stdout.strip().splitlines()
    total = sum(int(r.split("|")[0]) for r in rows)
    print(f"{label}: {total / n:.2f} statements per request ({n} requests in {elapsed:.1f} s, the feed's once-a-second reads included)")
    for r in rows:
        calls, q = r.split("|", 1)
        print(f"    {int(calls) / n:6.2f}  {q}")
measure("GET /v1/pets/{id}", "GET", f"/v1/pets/{pet}", None)
measure("POST /v1/store/orders", "POST", "/v1/store/orders", {"petId": pet, "quantity": 1})
server.terminate(); server.wait()
