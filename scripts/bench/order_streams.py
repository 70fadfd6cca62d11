"""What open checkout pages cost the server: order creations with no stream open, then with N
order streams (GET /v1/orders/{id}/stream) open, against one `cashier-sandbox serve`.

    python3 scripts/bench/order_streams.py [STREAMS] [CASHIER_SANDBOX_BINARY]

Prints the server's CPU for 200 order creations without and with the streams (and their ratio,
measured in the same run), its RSS, and how long a paid order takes to reach its stream.
"""
import json
import os
import selectors
import socket
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

streams = int(sys.argv[1]) if len(sys.argv) > 1 else 500
binary = sys.argv[2] if len(sys.argv) > 2 else ".build/debug/cashier-sandbox"
folder = tempfile.mkdtemp(prefix="cashier-streams-")
ready_file = os.path.join(folder, "ready.json")
server = subprocess.Popen([binary, "serve", "--db", os.path.join(folder, "cashier.db"), "--ready-file", ready_file,
                           # every stream comes from 127.0.0.1: the per-address limit (256) would refuse the rest
                           "--per-ip-connection-limit", "0"],
                          stdout=subprocess.DEVNULL)
try:
    for _ in range(300):
        if os.path.exists(ready_file) and os.path.getsize(ready_file) > 0:
            break
        time.sleep(0.1)
    ready = json.load(open(ready_file))
    api, sandbox, secret = ready["api_url"], ready["sandbox_url"].rstrip("/"), ready["secret_key"]
    host, port = api.split("//")[1].split(":")

    def call(method, url, body=None):
        request = urllib.request.Request(url, data=json.dumps(body).encode() if body is not None else None, method=method)
        request.add_header("Authorization", "Bearer " + secret)
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read() or b"{}")

    def new_order():
        return call("POST", api + "/v1/orders", {"items": [{"label": "Tea", "amount": "1.00"}], "currency": "CNY"})

    def cpu_seconds():
        fields = open(f"/proc/{server.pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def rss_mb():
        for line in open(f"/proc/{server.pid}/status"):
            if line.startswith("VmRSS"):
                return int(line.split()[1]) // 1024

    def creations():
        time.sleep(1.5)  # let the server settle
        before = cpu_seconds()
        for _ in range(200):
            new_order()
        return cpu_seconds() - before

    orders = [new_order() for _ in range(streams)]
    alone = creations()
    rss_before = rss_mb()
    selector = selectors.DefaultSelector()
    for order in orders:
        connection = socket.create_connection((host, int(port)))
        connection.sendall(f"GET /v1/orders/{order['id']}/stream?client_secret={order['client_secret']} HTTP/1.1\r\n"
                           "Host: cashier\r\n\r\n".encode())
        connection.setblocking(False)
        selector.register(connection, selectors.EVENT_READ, {"order": order, "seen": b""})

    def read(seconds):
        for key, _ in selector.select(seconds):
            key.data["seen"] += key.fileobj.recv(65536)

    deadline = time.time() + 30
    while time.time() < deadline and not all(b'"status":"created"' in k.data["seen"] for k in selector.get_map().values()):
        read(0.5)
    opened = sum(b'"status":"created"' in k.data["seen"] for k in selector.get_map().values())
    with_streams = creations()
    latencies = []
    keys = {k.data["order"]["id"]: k for k in selector.get_map().values()}
    for order in orders[:20]:
        started = call("POST", api + f"/v1/orders/{order['id']}/payments", {"method": "wechat.native"})
        keys[order["id"]].data["seen"] = b""
        begun = time.time()
        call("POST", sandbox + "/sandbox/pay", {"provider": "wechat", "out_trade_no": started["out_trade_no"], "outcome": "success"})
        while b'"status":"paid"' not in keys[order["id"]].data["seen"] and time.time() - begun < 10:
            read(0.2)
        latencies.append((time.time() - begun) * 1000)
    latencies.sort()
    print(f"order-streams streams={opened}/{streams} rss_mb={rss_before}->{rss_mb()}")
    print(f"order-streams creations cpu_ms alone={alone * 1000:.0f} with_streams={with_streams * 1000:.0f} "
          f"ratio={with_streams / alone:.2f}")
    print(f"order-streams paid_to_event_ms p50={latencies[len(latencies) // 2]:.1f} max={latencies[-1]:.1f} "
          "(the payer's call, the sandbox's notification and the stream)")
finally:
    server.terminate()
    server.wait(timeout=20)
    shutil.rmtree(folder, ignore_errors=True)
