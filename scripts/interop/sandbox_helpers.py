"""What the interop scripts share: a notify receiver on 127.0.0.1, the sandbox's payer API, a bounded wait."""
import http.server
import json
import threading
import time
import urllib.request


def start_receiver(on_body, reply=b"", status=200):
    """Serves POSTs on 127.0.0.1; each (headers dict, body bytes) goes to on_body, whose result is kept.

    Returns (url, results)."""
    results = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers["Content-Length"]))
            results.append(on_body({name: value for name, value in self.headers.items()}, body))
            self.send_response(status)
            if reply:
                self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            if reply:
                self.wfile.write(reply)

        def log_message(self, *args):
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return "http://127.0.0.1:%d/notify" % server.server_address[1], results


def pay(payer_url, provider, out_trade_no, outcome="success"):
    """Acts as the payer through the sandbox's payer API; returns its JSON answer."""
    request = urllib.request.Request(
        payer_url, data=json.dumps({"provider": provider, "out_trade_no": out_trade_no, "outcome": outcome}).encode(),
        headers={"Content-Type": "application/json"}, method="POST")
    return json.load(urllib.request.urlopen(request))


def wait_for(results, seconds=30.0):
    """Waits until results has an entry (bounded); returns whether it has.

    Generous: it returns as soon as the notification is in, and in a full test run on two cores
    the sandbox's delivery once took longer than 5 s."""
    deadline = time.time() + seconds
    while not results and time.time() < deadline:
        time.sleep(0.01)
    return bool(results)


def control(payer_url, path, body):
    """Calls one of the sandbox's JSON control routes (`/sandbox/...`) beside the payer API; returns its JSON answer."""
    base = payer_url.rsplit("/sandbox/pay", 1)[0]
    request = urllib.request.Request(base + path, method="POST", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
    return json.load(urllib.request.urlopen(request))
