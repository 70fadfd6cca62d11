"""The hosted checkout page (/pay/{order_id}) in a real browser, as payers on three kinds of device
see it: Debian's chromium with a desktop, a mobile and a WeChat-browser User-Agent (and Safari's,
with a stand-in ApplePaySession), driven by Selenium through Debian's chromedriver.

    checkout_pages.py API_URL SANDBOX_URL SECRET_KEY SCREENSHOT_DIR

Run by Tests/CashierCLITests/BrowserTests.swift against `cashier-sandbox serve`. Each payer sees
the right methods, pays through the sandbox, watches the page turn paid without reloading and
lands on return_url; a foreign return_url is refused; an expired order offers nothing; a
cancelled wallet returns to the choice. Prints one line per check; exits 1 if any failed.
"""
import atexit
import io
import json
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

import zxingcpp
from PIL import Image
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import WebDriverWait

api, sandbox, secret, shots = sys.argv[1:5]
sandbox = sandbox.rstrip("/")
shop = sandbox + "/sandbox/shop/return"
failures = []

DESKTOP = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"
MOBILE = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36"
WECHAT = ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 "
          "MicroMessenger/8.0.50(0x1800323c) NetType/WIFI Language/zh_CN")
SAFARI = ("Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 "
          "Safari/605.1.15")

# WeChat's browser gives pages WeixinJSBridge; here the test plays WeChat: it records the call,
# asks the sandbox (which checks paySign as WeChat does) and answers the page's callback.
WECHAT_BRIDGE = """
window.__bridge = { calls: [] };
window.WeixinJSBridge = { invoke: function (name, parameters, callback) {
  window.__bridge.calls.push({ name: name, parameters: parameters });
  window.__bridge.callback = callback;
} };
"""
# Safari's ApplePaySession, as far as the page uses it; the test plays the sheet.
APPLE_PAY_SESSION = """
window.__apple = {};
window.ApplePaySession = function (version, request) { window.__apple.session = this; window.__apple.request = request; };
window.ApplePaySession.canMakePayments = function () { return true; };
window.ApplePaySession.prototype.begin = function () { window.__apple.begun = true; };
window.ApplePaySession.prototype.abort = function () { window.__apple.aborted = true; };
window.ApplePaySession.prototype.completeMerchantValidation = function (session) { window.__apple.merchant = session; };
window.ApplePaySession.prototype.completePayment = function (result) { window.__apple.completed = result; };
"""


def check(name, ok, detail=""):
    print(("ok    " if ok else "FAIL  ") + name + (f"  ({detail})" if detail else ""), flush=True)
    if not ok:
        failures.append(name)


def call(method, url, body=None, key=None):
    request = urllib.request.Request(url, data=json.dumps(body).encode() if body is not None else None, method=method)
    if key:
        request.add_header("Authorization", "Bearer " + key)
    request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=20) as response:
            return response.status, json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


def order(description, return_url=None, expires_in=None):
    body = {"items": [{"label": "Latte", "amount": "12.75", "quantity": 2}, {"label": description, "amount": "6.00"}],
            "currency": "CNY", "description": description}
    if return_url:
        body["return_url"] = return_url
    if expires_in:
        body["expires_in"] = expires_in
    status, created = call("POST", api + "/v1/orders", body, key=secret)
    assert status == 201, created
    return created


def payments(order_id):
    return call("GET", api + f"/v1/orders/{order_id}", key=secret)[1].get("payments", [])


def start_browser():
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1200,900"]:
        options.add_argument(argument)
    started = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    started.set_page_load_timeout(20)
    return started


# One chromium for every payer (starting one costs more than the rest of a phase): each phase
# sets the device's User-Agent, language and screen through the DevTools protocol.
chromium = start_browser()
atexit.register(chromium.quit)
injected_script = None


def browser(agent, width, height, language="zh-CN", injected=None):
    global injected_script
    if injected_script:
        chromium.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": injected_script})
        injected_script = None
    chromium.get("about:blank")
    chromium.delete_all_cookies()
    chromium.execute_cdp_cmd("Emulation.setUserAgentOverride", {"userAgent": agent, "acceptLanguage": language})
    chromium.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                             {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 800})
    if injected:
        injected_script = chromium.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": injected})["identifier"]
    return chromium


def element(driver, element_id, seconds=10):
    return WebDriverWait(driver, seconds).until(expected_conditions.presence_of_element_located((By.ID, element_id)))


def visible(driver, element_id):
    found = driver.find_elements(By.ID, element_id)
    return bool(found) and found[0].is_displayed()


def until(condition, seconds=20):
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            if condition():
                return True
        except Exception:
            pass
        time.sleep(0.1)
    return False


def methods(driver):
    return sorted(button.get_attribute("id")[4:] for button in driver.find_elements(By.CSS_SELECTOR, "#methods button")
                  if button.is_displayed())


def mark(driver):
    """Marks this document and records each status it shows in window.name, which outlives the
    redirect to return_url: "paid:same" afterwards means the page turned paid without a reload."""
    driver.execute_script("""
        window.__sameDocument = 'same';
        window.name = '';
        var main = document.getElementById('checkout');
        new MutationObserver(function () {
          window.name += main.getAttribute('data-status') + ':' + window.__sameDocument + ' ';
        }).observe(main, { attributes: true, attributeFilter: ['data-status'] });
    """)


def turns_paid_then_returns(driver, name, return_prefix):
    turned = until(lambda: "paid:same" in driver.execute_script("return window.name"), 30)
    check(f"{name}: the page turns paid without reloading", turned, driver.execute_script("return window.name"))
    landed = until(lambda: driver.current_url.startswith(return_prefix), 15)
    check(f"{name}: and lands on return_url", landed, driver.current_url)
    return landed


def shot(driver, name):
    driver.save_screenshot(f"{shots}/{name}.png")


# Desktop: WeChat Pay's QR code (read back from the screen) and Alipay's page; paid from the phone.
desktop = browser(DESKTOP, 1200, 900, "en-US")
placed = order("Desktop bagel", return_url=shop + "?ref=desktop")
desktop.get(placed["checkout_url"])
check("desktop: WeChat QR and Alipay page are offered", methods(desktop) == ["alipay.page", "wechat.native"],
      methods(desktop))
check("desktop: the page speaks English when asked", "Checkout" in desktop.title and "2 × Latte" in
      desktop.find_element(By.ID, "items").text)
shot(desktop, "checkout-desktop")
desktop.find_element(By.ID, "pay-wechat.native").click()
qr = element(desktop, "qr")
decoded = [result.text for result in zxingcpp.read_barcodes(Image.open(io.BytesIO(qr.screenshot_as_png)))]
check("desktop: the QR code reads as WeChat's code_url", len(decoded) == 1 and decoded[0].startswith("weixin://wxpay/"),
      decoded)
shot(desktop, "checkout-desktop-qr")
mark(desktop)
number = payments(placed["id"])[0]["out_trade_no"]
status, paid = call("POST", sandbox + "/sandbox/pay", {"provider": "wechat", "out_trade_no": number, "outcome": "success"})
check("desktop: the phone pays the QR code", status == 200 and paid.get("trade_state") == "SUCCESS", paid)
turns_paid_then_returns(desktop, "desktop", shop + "?ref=desktop")
check("desktop: the shop's page gets the payer", element(desktop, "shop").text == "Back at the shop")

# A foreign return_url in the link is refused; an order cannot be given one either.
plain = order("Foreign return")
desktop.get(plain["checkout_url"] + "?return_url=" + urllib.parse.quote("https://evil.example/landing", safe=""))
check("a foreign return_url is refused", "not allowed" in element(desktop, "notice").text.lower()
      and not desktop.find_elements(By.ID, "methods"), desktop.find_element(By.TAG_NAME, "body").text[:120])
status, refused = call("POST", api + "/v1/orders", {"items": [{"label": "x", "amount": "1.00"}], "currency": "CNY",
                                                   "return_url": "https://evil.example/"}, key=secret)
check("an order with a foreign return_url is refused", status == 422, refused)

# An expired order shows so and offers nothing.
expiring = order("Expiring", expires_in=1)
time.sleep(1.5)
desktop.get(expiring["checkout_url"])
check("an expired order offers nothing", not desktop.find_elements(By.ID, "methods")
      and element(desktop, "checkout").get_attribute("data-payable") == "no", element(desktop, "status").text)
shot(desktop, "checkout-expired")

# A mobile browser: WeChat H5 cancelled in the wallet, back to the choice; then Alipay wap pays.
mobile = browser(MOBILE, 412, 915)
placed = order("Mobile tea", return_url=shop + "?ref=mobile")
mobile.get(placed["checkout_url"])
check("mobile: WeChat H5 and Alipay wap are offered", methods(mobile) == ["alipay.wap", "wechat.h5"], methods(mobile))
check("mobile: the page speaks Chinese", "收银台" in mobile.title)
shot(mobile, "checkout-mobile")
mobile.find_element(By.ID, "pay-wechat.h5").click()
check("mobile: handed to WeChat's H5 cashier", until(lambda: mobile.current_url.startswith(sandbox + "/sandbox/wechat/h5")),
      mobile.current_url)
element(mobile, "cancel").click()
check("mobile: cancelled, back to the choice", until(lambda: mobile.current_url.startswith(api + "/pay/"))
      and element(mobile, "note").is_displayed() and methods(mobile) == ["alipay.wap", "wechat.h5"], mobile.current_url)
shot(mobile, "checkout-mobile-cancelled")
mobile.find_element(By.ID, "pay-alipay.wap").click()
check("mobile: handed to Alipay's wap cashier", until(lambda: mobile.current_url.startswith(sandbox)), mobile.current_url)
element(mobile, "pay").click()
check("mobile: Alipay sends the payer back to the page", until(lambda: mobile.current_url.startswith(api + "/pay/")
                                                               or mobile.current_url.startswith(shop)))
landed = until(lambda: mobile.current_url.startswith(shop + "?ref=mobile"), 30)
check("mobile: paid, and lands on return_url", landed, mobile.current_url)
attempts = payments(placed["id"])
check("mobile: a new attempt for each try, the cancelled one closed",
      sorted(p["status"] for p in attempts) == ["closed", "succeeded"], [(p["method"], p["status"]) for p in attempts])

# WeChat's browser: web authorisation for the openid (silent), then JSAPI through WeixinJSBridge.
wechat = browser(WECHAT, 390, 844, injected=WECHAT_BRIDGE)


def bridge_pays(action):
    until(lambda: wechat.execute_script("return window.__bridge && window.__bridge.calls.length") > 0)
    invocation = wechat.execute_script("return window.__bridge.calls[0]")
    check(f"wechat ({action}): the page calls getBrandWCPayRequest", invocation and invocation["name"] == "getBrandWCPayRequest",
          invocation)
    parameters = dict(invocation["parameters"], action=action)
    _, answer = call("POST", sandbox + "/sandbox/wechat/jsapi", parameters)
    check(f"wechat ({action}): WeChat accepts the signed parameters", answer.get("err_msg", "").endswith(action if action != "pay" else "ok"), answer)
    wechat.execute_script("window.__bridge.callback(arguments[0])", answer)


cancelled = order("WeChat cancelled")
wechat.get(cancelled["checkout_url"])
check("wechat: only JSAPI is offered", methods(wechat) == ["wechat.jsapi"], methods(wechat))
shot(wechat, "checkout-wechat")
wechat.find_element(By.ID, "pay-wechat.jsapi").click()
check("wechat: authorised and back with a JSAPI payment", until(lambda: "/wechat?" in wechat.current_url), wechat.current_url)
bridge_pays("cancel")
check("wechat: cancelled, back to the choice", until(lambda: visible(wechat, "note") and methods(wechat) == ["wechat.jsapi"]),
      wechat.current_url)

placed = order("WeChat latte", return_url=shop + "?ref=wechat")
wechat.get(placed["checkout_url"])
wechat.find_element(By.ID, "pay-wechat.jsapi").click()
until(lambda: "/wechat?" in wechat.current_url)
mark(wechat)
bridge_pays("pay")
turns_paid_then_returns(wechat, "wechat", shop + "?ref=wechat")

# Safari on a Mac with Apple Pay: the button appears only where ApplePaySession can pay.
safari = browser(SAFARI, 1200, 900, "en-US", injected=APPLE_PAY_SESSION)
placed = order("Safari scone", return_url=shop + "?ref=safari")
safari.get(placed["checkout_url"])
check("safari: Apple Pay is offered first", methods(safari) == ["alipay.page", "applepay", "wechat.native"]
      and safari.find_elements(By.CSS_SELECTOR, "#methods button")[0].get_attribute("id") == "pay-applepay",
      methods(safari))
shot(safari, "checkout-safari")
mark(safari)
safari.find_element(By.ID, "pay-applepay").click()
check("safari: the sheet opens with the order's total", until(lambda: safari.execute_script("return window.__apple.begun"))
      and safari.execute_script("return window.__apple.request.total.amount") == "31.50")
# A change the server refuses (a shipping method it does not offer: its error, not an update) ends
# the sheet at once and says so, rather than handing Safari an answer it rejects, which would
# leave the payer waiting for the sheet's timeout. The stand-in has no completeShippingMethodSelection.
safari.execute_script("window.__apple.session.onshippingmethodselected({shippingMethod: {identifier: 'drone'}})")
check("safari: a refused sheet change ends the sheet",
      until(lambda: safari.execute_script("return window.__apple.aborted === true"))
      and safari.execute_script("return document.getElementById('checkout').getAttribute('data-status')") == "failed",
      safari.execute_script("return JSON.stringify(window.__apple)"))
# The payer tries again: a new sheet.
safari.execute_script("window.__apple = {}")
safari.find_element(By.ID, "pay-applepay").click()
check("safari: the sheet opens again", until(lambda: safari.execute_script("return window.__apple.begun")))
safari.execute_script("window.__apple.session.onvalidatemerchant({validationURL: arguments[0]})",
                      sandbox + "/sandbox/applepay/paymentservices/startSession")
check("safari: the merchant is validated through the server",
      until(lambda: safari.execute_script("return window.__apple.merchant && window.__apple.merchant.merchantSessionIdentifier")))
_, token = call("POST", sandbox + "/sandbox/applepay/token", {"order_id": placed["id"]})
safari.execute_script("window.__apple.session.onpaymentauthorized({payment: arguments[0]})", token)
check("safari: the token is authorised", until(lambda: safari.execute_script("return window.__apple.completed && "
                                                                              "window.__apple.completed.status") == 0))
turns_paid_then_returns(safari, "safari", shop + "?ref=safari")

print(f"{len(failures)} failed")
sys.exit(1 if failures else 0)
