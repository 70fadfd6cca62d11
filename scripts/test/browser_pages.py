"""The dashboard and the sandbox's payer pages in a real browser (Debian's chromium, driven by
Selenium through Debian's chromedriver; nothing is downloaded at run time).

    browser_pages.py API_URL SANDBOX_URL SECRET_KEY PUBLISHABLE_KEY SCREENSHOT_DIR

Run by Tests/CashierCLITests/BrowserTests.swift against `cashier serve --sandbox`. Prints one
line per check and exits 1 if any failed.
"""
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
from selenium.common.exceptions import NoAlertPresentException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import WebDriverWait

api, sandbox, secret, publishable, shots = sys.argv[1:6]
sandbox = sandbox.rstrip("/")
failures = []


def check(name, ok, detail=""):
    print(("ok    " if ok else "FAIL  ") + name + (f"  ({detail})" if detail else ""), flush=True)
    if not ok:
        failures.append(name)


def call(method, path, body=None, key=secret, base=None):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request((base or api) + path, data=data, method=method)
    if key:
        request.add_header("Authorization", "Bearer " + key)
    request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=20) as response:
            return response.status, json.loads(response.read() or b"{}"), dict(response.headers)
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}"), dict(error.headers)


def order(amount, description):
    status, created, _ = call("POST", "/v1/orders", {"items": [{"label": description, "amount": amount}], "currency": "CNY",
                                                     "description": description})
    assert status == 201, created
    return created


def status_of(order_id):
    return call("GET", f"/v1/orders/{order_id}")[1].get("status")


def wait_status(order_id, wanted, seconds=15):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if status_of(order_id) == wanted:
            return True
        time.sleep(0.1)
    return False


def element(by, value, seconds=10):
    """The element, once the page that has it has loaded (a click that submits a form returns early)."""
    return WebDriverWait(driver, seconds).until(expected_conditions.presence_of_element_located((by, value)))


def arrived(prefix, seconds=10):
    try:
        WebDriverWait(driver, seconds).until(lambda d: d.current_url.startswith(prefix))
        return True
    except Exception:
        return False


def shot(driver, name):
    driver.save_screenshot(f"{shots}/{name}.png")


options = webdriver.ChromeOptions()
options.binary_location = "/usr/bin/chromium"
for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1200,900",
                 "--lang=en-US"]:
    options.add_argument(argument)
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
driver.set_page_load_timeout(20)
try:
    # Orders the merchant's backend made: one paid (to refund), one with a hostile description.
    paid = order("25.50", "2 lattes")
    call("POST", f"/v1/orders/{paid['id']}/payments", {"method": "wechat.native"})
    call("POST", "/sandbox/pay", {"provider": "wechat", "out_trade_no": paid["out_trade_no"], "outcome": "success"},
         key=None, base=sandbox)
    check("the order to refund is paid", wait_status(paid["id"], "paid"))
    xss = '<img src=x onerror="alert(1)"><script>alert("xss")</script>'
    hostile = order("1.00", xss)

    # Sign in: a wrong key is refused; the right one gives an HttpOnly, SameSite=Strict session.
    driver.get(api + "/dashboard")
    check("the dashboard asks to sign in", driver.current_url.endswith("/dashboard/login"))
    shot(driver, "dashboard-sign-in")
    driver.find_element(By.ID, "secret_key").send_keys("sk_wrong")
    driver.find_element(By.ID, "sign-in").click()
    check("a wrong key is refused", "not this server's secret key" in element(By.ID, "error").text)
    driver.find_element(By.ID, "secret_key").send_keys(secret)
    driver.find_element(By.ID, "sign-in").click()
    check("the right key signs in", element(By.ID, "orders") is not None and driver.current_url.endswith("/dashboard"))
    cookie = next(c for c in driver.get_cookies() if c["name"] == "cashier_session")
    check("the session cookie is HttpOnly and SameSite=Strict", cookie["httpOnly"] and cookie.get("sameSite") == "Strict")
    shot(driver, "dashboard-orders")

    # The stored XSS attempt renders inert, as text.
    rendered = [row.text for row in driver.find_elements(By.CSS_SELECTOR, "#orders tbody tr")]
    check("the hostile description shows as text in the list", any(xss in text for text in rendered))
    driver.get(api + f"/dashboard/orders/{hostile['id']}")
    try:
        driver.switch_to.alert
        check("no script runs from an order description", False, "an alert opened")
    except NoAlertPresentException:
        check("no script runs from an order description", True)
    check("the order page shows the description as typed", driver.find_element(By.ID, "description").text == xss)
    check("no element was injected", not driver.find_elements(By.CSS_SELECTOR, "main img, main script"))

    # Find the paid order by out_trade_no, refund part of it, watch the timeline.
    driver.get(api + "/dashboard")
    driver.find_element(By.ID, "search").send_keys(paid["out_trade_no"])
    driver.find_element(By.CSS_SELECTOR, "form.card button").click()
    arrived(api + "/dashboard?q=")
    element(By.ID, "orders")
    rows = driver.find_elements(By.CSS_SELECTOR, "#orders tbody tr")
    check("the search finds the order", len(rows) == 1 and paid["out_trade_no"] in rows[0].text)
    rows[0].find_element(By.TAG_NAME, "a").click()
    check("the order page shows its total", element(By.ID, "total").text == "¥25.50")
    driver.find_element(By.ID, "refund-amount").send_keys("5.00")
    driver.find_element(By.ID, "refund-reason").send_keys("one latte was cold")
    driver.find_element(By.ID, "refund").click()
    check("the refund is confirmed", "Refunded 5.00" in element(By.ID, "message").text)
    check("the order shows the refund", driver.find_element(By.ID, "refunded").text == "¥5.00")
    confirmed = False
    for _ in range(50):
        kinds = [row.get_attribute("class") for row in driver.find_elements(By.CSS_SELECTOR, "#timeline tr.event")]
        if any("refund_notification" in kind for kind in kinds):
            confirmed = True
            break
        time.sleep(0.2)
        driver.refresh()
    check("the timeline shows WeChat's refund notification", confirmed)
    check("the API agrees: partially refunded", status_of(paid["id"]) == "partially_refunded")
    shot(driver, "dashboard-order")

    # A form without the CSRF token is refused even with the session cookie.
    request = urllib.request.Request(api + f"/dashboard/orders/{paid['id']}/refund", data=b"amount=1.00", method="POST")
    request.add_header("Cookie", "cashier_session=" + cookie["value"])
    try:
        urllib.request.urlopen(request, timeout=10)
        check("a form without the CSRF token is refused", False)
    except urllib.error.HTTPError as error:
        check("a form without the CSRF token is refused", error.code == 403)
    check("and nothing was refunded", call("GET", f"/v1/orders/{paid['id']}")[1]["amount_refunded"]["amount_minor"] == 500)

    driver.get(api + "/dashboard/live")
    check("the live view lists notifications", len(driver.find_elements(By.CSS_SELECTOR, "#live tbody tr")) >= 2)
    shot(driver, "dashboard-live")
    driver.get(api + "/dashboard/reconciliation")
    driver.find_element(By.ID, "reconcile").click()
    check("reconciliation reports on the day", "matched" in element(By.ID, "summary").text)
    shot(driver, "dashboard-reconciliation")

    # WeChat Native: the QR code read back from the rendered page says code_url; "scan and pay" pays.
    native = order("12.75", "Mocha")
    _, parameters, _ = call("POST", f"/v1/orders/{native['id']}/payments", {"method": "wechat.native"})
    driver.get(sandbox + f"/sandbox/wechat/native/{native['out_trade_no']}")
    png = driver.find_element(By.ID, "qr").screenshot_as_png
    decoded = [result.text for result in zxingcpp.read_barcodes(Image.open(io.BytesIO(png)))]
    check("the QR code decodes to code_url", decoded == [parameters["code_url"]], f"{decoded} vs {parameters['code_url']}")
    shot(driver, "sandbox-wechat-native")
    driver.find_element(By.ID, "scan-and-pay").click()
    check("the page says paid", "Paid" in element(By.ID, "state").text)
    check("scan and pay pays the order", wait_status(native["id"], "paid"))

    # Alipay wap: the cashier page, then back to return_url with the order paid.
    wap = order("6.60", "Cake")
    back = api + "/healthz?returned=alipay"
    _, parameters, _ = call("POST", f"/v1/orders/{wap['id']}/payments", {"method": "alipay.wap", "return_url": back})
    driver.get(parameters["url"])
    check("the Alipay cashier shows the amount", driver.find_element(By.ID, "amount").text == "¥6.60")
    shot(driver, "sandbox-alipay-wap")
    driver.find_element(By.ID, "pay").click()
    check("Alipay sends the browser back to return_url", arrived(back), driver.current_url)
    check("and the order is paid", wait_status(wap["id"], "paid"))

    # WeChat H5: mweb_url plus redirect_url, pay, back.
    h5 = order("3.30", "Tea")
    back = api + "/healthz?returned=wechat"
    _, parameters, _ = call("POST", f"/v1/orders/{h5['id']}/payments", {"method": "wechat.h5"})
    driver.get(parameters["mweb_url"] + "&redirect_url=" + urllib.parse.quote(back, safe=""))
    check("the WeChat H5 cashier shows the amount", driver.find_element(By.ID, "amount").text == "¥3.30")
    shot(driver, "sandbox-wechat-h5")
    driver.find_element(By.ID, "pay").click()
    check("WeChat sends the browser back to redirect_url", arrived(back), driver.current_url)
    check("and the order is paid", wait_status(h5["id"], "paid"))

    # Apple Pay on the web: the checkout mints a sandbox token and the server authorises it.
    apple = order("46.00", "Beans")
    call("POST", f"/v1/orders/{apple['id']}/payments", {"method": "applepay"})
    query = urllib.parse.urlencode({"api": api, "publishable_key": publishable, "order_id": apple["id"],
                                    "client_secret": apple["client_secret"]})
    driver.get(sandbox + "/sandbox/applepay/checkout?" + query)
    check("the checkout shows the amount", driver.find_element(By.ID, "amount").text == "46.00 CNY")
    shot(driver, "sandbox-applepay-checkout")
    driver.find_element(By.ID, "applepay").click()
    check("Pay authorises the token", element(By.ID, "order-status").text == "paid")
    check("and the server says paid", status_of(apple["id"]) == "paid")
    shot(driver, "sandbox-applepay-paid")

    # Every page: a strict policy, nothing from elsewhere.
    for url in [api + "/dashboard/login", sandbox + f"/sandbox/wechat/native/{native['out_trade_no']}", parameters["mweb_url"]]:
        with urllib.request.urlopen(url, timeout=10) as response:
            policy = response.headers.get("Content-Security-Policy", "")
        check(f"strict CSP on {urllib.parse.urlparse(url).path}",
              "default-src 'none'" in policy and "unsafe-inline" not in policy and "frame-ancestors 'none'" in policy, policy)
finally:
    driver.quit()

print(f"{len(failures)} failed")
sys.exit(1 if failures else 0)
