"""A stand-in for Apple's merchant-validation endpoint, for ApplePayTests (system python3, stdlib only).

argv: server certificate PEM, server key PEM, CA PEM (client certificates must chain to it).
Listens on 127.0.0.1 on a free port over TLS that demands a client certificate, prints the port,
and answers each POST with a merchant session in Apple's shape that echoes the request body and
the client certificate's subject, so the test can see both. A body whose merchantIdentifier is
"merchant.refused" gets Apple's error shape with HTTP 400.
"""
import http.server
import json
import os
import signal
import ssl
import sys
import threading

# Started from a Swift test thread, the process inherits a mask that blocks SIGTERM: unblock it,
# and also exit when the test closes our stdin (or dies), so no server outlives its test.
signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
threading.Thread(target=lambda: (sys.stdin.read(), os._exit(0)), daemon=True).start()

server_cert, server_key, ca = sys.argv[1:4]


class Handler(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        subject = dict(pair[0] for pair in self.connection.getpeercert()["subject"])
        if body.get("merchantIdentifier") == "merchant.refused":
            answer, status = {"statusCode": "400", "statusMessage": "Payment Services Exception merchantId=refused not registered"}, 400
        else:
            answer = {"epochTimestamp": 1796000000000, "expiresAt": 1796003600000, "merchantSessionIdentifier": "SSH_SANDBOX",
                      "nonce": "0f1e2d3c", "merchantIdentifier": "4E1F", "domainName": body.get("initiativeContext"),
                      "displayName": body.get("displayName"), "signature": "c2lnbmF0dXJl", "echo": body, "client": subject}
            status = 200
        data = json.dumps(answer).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(server_cert, server_key)
context.load_verify_locations(ca)
context.verify_mode = ssl.CERT_REQUIRED
server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
server.socket = context.wrap_socket(server.socket, server_side=True)
print(server.server_address[1], flush=True)
server.serve_forever()
