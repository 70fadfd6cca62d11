"""What the wechatpayv3 2.0.4 interop scripts (transfers, complaints, profit sharing) share: the client
pointed at the sandbox with a notify receiver whose bodies go through callback(), the sandbox's own
JSON calls, and a bounded wait for a notification."""
import atexit
import json
import os
import shutil
import tempfile
import time
import urllib.request

from wechatpayv3 import WeChatPay, WeChatPayType

from sandbox_helpers import start_receiver


def connect(config, name):
    """A NATIVE-type WeChatPay for config's merchant, its gateway the sandbox, the platform certificate
    in a temporary cert_dir (removed at exit), notifications to a local receiver that keeps what
    callback() makes of each (None when it does not verify). Returns (wxpay, notify_url, received, folder)."""
    client = {}
    notify_url, received = start_receiver(lambda headers, body: client["wxpay"].callback(headers, body), status=204)
    folder = tempfile.mkdtemp(prefix="cashier-wechatpayv3-%s-" % name)
    atexit.register(shutil.rmtree, folder, True)
    with open(os.path.join(folder, "platform.pem"), "w") as f:
        f.write(config["platform_cert"])
    wxpay = WeChatPay(
        wechatpay_type=WeChatPayType.NATIVE, mchid=config["mchid"], private_key=config["private_key"],
        cert_serial_no=config["serial"], appid=config["appid"], apiv3_key=config["apiv3_key"], notify_url=notify_url,
        cert_dir=folder + "/")
    wxpay._core._gate_way = config["gateway"]
    client["wxpay"] = wxpay
    return wxpay, notify_url, received, folder


def sandbox(config, path, body):
    """POSTs body as JSON to the sandbox's own path (not the gateway's); returns its JSON answer."""
    request = urllib.request.Request(
        config["sandbox"] + path, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}, method="POST")
    return json.load(urllib.request.urlopen(request))


def wait_for(received, matches, what, seconds=30.0):
    """The first notification callback() opened for which matches(resource) is true, within seconds."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        for item in received:
            assert item is not None, "callback() refused a sandbox notification"
            if matches(item["resource"]):
                return item
        time.sleep(0.01)
    raise AssertionError("no notification for %s: %s" % (what, received))
