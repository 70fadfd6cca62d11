"""The dashboard and the sandbox's payer pages in a real browser (Debian's chromium, driven by
Selenium through Debian's chromedriver; nothing is downloaded at run time).

    browser_pages.py API_URL SANDBOX_URL SECRET_KEY PUBLISHABLE_KEY SCREENSHOT_DIR RECEIVER_URL DOWNLOAD_DIR

Run by Tests/CashierCLITests/BrowserTests.swift against `cashier-sandbox serve --webhook-url …`,
whose webhook receiver (RECEIVER_URL: POST /up, POST /down, GET /received) starts down. Prints
one line per check and exits 1 if any failed.
"""
import csv
import io
import json
import os
import sys
import time
from decimal import Decimal
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

api, sandbox, secret, publishable, shots, receiver, downloads = sys.argv[1:8]
sandbox = sandbox.rstrip("/")
failures = []
# What this script paid and refunded, in fen: the overview must say the same.
paid_fen = []
refunded_fen = []


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


def fen(text):
    """'¥113.95' or '113.95' → 11395."""
    return int(Decimal(text.replace("¥", "").replace(",", "")) * 100)


def yuan(minor):
    return f"¥{minor // 100}.{minor % 100:02d}"


def receiver_call(method, path):
    request = urllib.request.Request(receiver + path, data=b"" if method == "POST" else None, method=method)
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read() or b"null") if path == "/received" else response.read()


def accepted(event_id):
    return sum(1 for row in receiver_call("GET", "/received") if row["event_id"] == event_id and row["accepted"])


def until(condition, seconds=15, refresh=False):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if condition():
            return True
        time.sleep(0.2)
        if refresh:
            driver.refresh()
    return False


def search(page, text):
    """Types into the search box of /dashboard/{page}, submits, and returns the rows found."""
    driver.find_element(By.ID, "filter-q").send_keys(text)
    driver.find_element(By.ID, "apply").click()
    arrived(api + f"/dashboard/{page}?")
    element(By.ID, page)
    return driver.find_elements(By.CSS_SELECTOR, f"#{page} tbody tr")


def listed(path):
    return call("GET", path)[1].get("data", [])


options = webdriver.ChromeOptions()
options.binary_location = "/usr/bin/chromium"
for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1200,900",
                 "--lang=en-US"]:
    options.add_argument(argument)
options.add_experimental_option("prefs", {"download.default_directory": downloads, "download.prompt_for_download": False})
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
driver.set_page_load_timeout(20)
driver.execute_cdp_cmd("Page.setDownloadBehavior", {"behavior": "allow", "downloadPath": downloads})
try:
    # Orders the merchant's backend made: one paid (to refund), one with a hostile description.
    paid = order("25.50", "2 lattes")
    call("POST", f"/v1/orders/{paid['id']}/payments", {"method": "wechat.native"})
    call("POST", "/sandbox/pay", {"provider": "wechat", "out_trade_no": paid["out_trade_no"], "outcome": "success"},
         key=None, base=sandbox)
    check("the order to refund is paid", wait_status(paid["id"], "paid"))
    paid_fen.append(2550)
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
    check("the right key signs in to the overview", element(By.ID, "overview") is not None and driver.current_url.endswith("/dashboard"))
    cookie = next(c for c in driver.get_cookies() if c["name"] == "cashier_session")
    check("the session cookie is HttpOnly and SameSite=Strict", cookie["httpOnly"] and cookie.get("sameSite") == "Strict")

    # The stored XSS attempt renders inert, as text.
    driver.get(api + "/dashboard/orders")
    shot(driver, "dashboard-orders")
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
    driver.get(api + "/dashboard/orders")
    driver.find_element(By.ID, "search").send_keys(paid["out_trade_no"])
    driver.find_element(By.CSS_SELECTOR, "form.card button").click()
    arrived(api + "/dashboard/orders?q=")
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
    refunded_fen.append(500)
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
    paid_fen.append(1275)

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
    paid_fen.append(660)

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
    paid_fen.append(330)

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
    check("after the server validated the merchant", element(By.ID, "merchant-session").text.startswith("Merchant validated: session SSH"))
    check("and the server says paid", status_of(apple["id"]) == "paid")
    paid_fen.append(4600)
    shot(driver, "sandbox-applepay-paid")

    # Paid twice: an Alipay order string the payer opened after paying by WeChat. The overview counts
    # it as waiting; the payments list refunds it in one click.
    twice = order("9.90", "Muffin")
    _, stale, _ = call("POST", f"/v1/orders/{twice['id']}/payments", {"method": "alipay.app"})
    call("POST", f"/v1/orders/{twice['id']}/payments", {"method": "wechat.native"})
    call("POST", "/sandbox/pay", {"provider": "wechat", "out_trade_no": twice["out_trade_no"], "outcome": "success"},
         key=None, base=sandbox)
    check("the muffin is paid", wait_status(twice["id"], "paid"))
    call("POST", "/sandbox/pay", {"provider": "alipay", "order_string": stale.get("order_string", ""), "outcome": "success"},
         key=None, base=sandbox)
    check("the second payment waits for its refund", until(lambda: len(listed("/v1/payments?refund_required=true")) == 1))
    paid_fen += [990, 990]
    driver.get(api + "/dashboard")
    check("the overview counts it as waiting to be refunded", element(By.ID, "refund-required").text == "1")
    driver.find_element(By.CSS_SELECTOR, "a[href='/dashboard/payments?refund_required=1']").click()
    element(By.ID, "payments")
    owed = driver.find_elements(By.CSS_SELECTOR, "#payments tbody tr")
    check("the payments list shows the one to refund", len(owed) == 1 and "alipay.app" in owed[0].text, [r.text for r in owed])
    owed[0].find_element(By.CSS_SELECTOR, "button.refund-payment").click()
    check("one click refunds it", "Refunded ¥9.90" in element(By.ID, "message").text)
    refunded_fen.append(990)
    check("and nothing is waiting any more", not listed("/v1/payments?refund_required=true"))

    # The overview: today's figures are what this script paid and refunded; the chart adds up to them.
    driver.get(api + "/dashboard?period=today")
    gross, refunds = sum(paid_fen), sum(refunded_fen)
    check("gross volume is what was paid", element(By.ID, "gross-CNY").text == yuan(gross), element(By.ID, "gross-CNY").text)
    check("refunds are what was refunded", driver.find_element(By.ID, "refunds-CNY").text == yuan(refunds))
    check("net is the difference", driver.find_element(By.ID, "net-CNY").text == yuan(gross - refunds))
    all_orders = listed("/v1/orders?limit=100")
    check("the order count is the orders made", driver.find_element(By.ID, "orders-count").text == str(len(all_orders)) == "7",
          f"{driver.find_element(By.ID, 'orders-count').text} vs {len(all_orders)}")
    payments = listed("/v1/payments?limit=100")
    succeeded = sum(1 for p in payments if p["status"] == "succeeded")
    started = sum(1 for p in payments if p["status"] != "created")
    rate = driver.find_element(By.ID, "success-rate")
    note = rate.find_element(By.XPATH, "..").text
    check("the success rate is paid over started", succeeded == 7 and rate.text == f"{round(100 * succeeded / started)}%"
          and f"{succeeded} of {started} payments started" in note, note)
    check("nothing waits to be refunded", driver.find_element(By.ID, "refund-required").text == "0")
    chart = driver.find_element(By.ID, "chart")
    bars = driver.find_elements(By.CSS_SELECTOR, "#chart rect.bar")
    amounts = [int(bar.get_attribute("data-amount")) for bar in bars]
    check("the chart is drawn", chart.size["height"] > 100 and len(bars) >= 1, chart.size)
    check("its bars add up to the gross volume", sum(amounts) == gross, amounts)
    titles = [bar.find_element(By.TAG_NAME, "title").get_attribute("textContent") for bar in bars]
    check("each bar says what it holds", all(yuan(amount) in title for amount, title in zip(amounts, titles) if amount), titles)
    check("one bar an hour, 00:00 to 23:00", len(bars) == 24 and titles[0].startswith("00:00:") and titles[-1].startswith("23:00:"),
          titles[:2])
    described = driver.find_element(By.ID, "chart-title").get_attribute("textContent")
    check("the chart has a title for screen readers", described.startswith("Volume (CNY)"), described)
    methods = {row.find_elements(By.TAG_NAME, "td")[0].text for row in driver.find_elements(By.CSS_SELECTOR, "#methods tbody tr")}
    check("volume is broken down by method", {"wechat.native", "alipay.wap", "wechat.h5", "applepay", "alipay.app"} <= methods,
          methods)
    driver.set_window_size(1200, 1500)
    shot(driver, "dashboard-overview")
    driver.set_window_size(1200, 900)
    driver.find_element(By.ID, "period-7d").click()
    check("the 7-day view adds up the same", element(By.ID, "gross-CNY").text == yuan(gross))

    # Payments and refunds, listed and found.
    driver.get(api + "/dashboard/payments")
    rows = driver.find_elements(By.CSS_SELECTOR, "#payments tbody tr")
    check("the payments list shows every payment", len(rows) == len(payments), f"{len(rows)} vs {len(payments)}")
    shot(driver, "dashboard-payments")
    wap_payment = next(p for p in payments if p["method"] == "alipay.wap")
    rows = search("payments", wap_payment["transaction_id"])
    check("a search by transaction id finds the payment", len(rows) == 1 and wap_payment["transaction_id"] in rows[0].text)
    driver.get(api + "/dashboard/payments?provider=alipay")
    rows = driver.find_elements(By.CSS_SELECTOR, "#payments tbody tr")
    alipay_count = sum(1 for p in payments if p["provider"] == "alipay")
    check("the provider filter keeps Alipay's", len(rows) == alipay_count == 2 and all("alipay" in row.text for row in rows),
          len(rows))
    driver.get(api + "/dashboard/refunds")
    rows = driver.find_elements(By.CSS_SELECTOR, "#refunds tbody tr")
    check("the refunds list shows both", len(rows) == 2, [r.text for r in rows])
    check("each names the dashboard session that made it", all("dashboard " in row.text for row in rows))
    shot(driver, "dashboard-refunds")
    cold = next(r for r in listed("/v1/refunds") if r["amount"]["amount_minor"] == 500)
    rows = search("refunds", cold["out_refund_no"])
    check("a search by out_refund_no finds the refund", len(rows) == 1 and cold["out_refund_no"] in rows[0].text)

    # Export: the orders CSV, downloaded by the browser, reads back as the orders.
    driver.get(api + "/dashboard/export")
    day_to = driver.find_element(By.ID, "export-to").get_attribute("value")
    shot(driver, "dashboard-export")
    driver.find_element(By.ID, "export-orders").click()
    path = os.path.join(downloads, f"orders-{day_to}-to-{day_to}.csv")
    check("the browser downloads orders.csv", until(lambda: os.path.exists(path)), os.listdir(downloads))
    raw = open(path, "rb").read() if os.path.exists(path) else b""
    check("it starts with a UTF-8 byte-order mark", raw.startswith(b"\xef\xbb\xbf"))
    exported = list(csv.DictReader(io.StringIO(raw.decode("utf-8-sig"), newline="")))
    expected = [(o["id"], o["out_trade_no"], o["status"], o["amount"]["amount"], o["amount_refunded"]["amount"], o["description"])
                for o in reversed(all_orders)]
    got = [(r["id"], r["out_trade_no"], r["status"], r["amount"], r["amount_refunded"], r["description"]) for r in exported]
    check("the CSV parsed back equals the orders", got == expected, f"{got[:2]} vs {expected[:2]}")

    # Webhooks: the endpoint was down the whole time; once it is back, re-sent from the dashboard.
    driver.get(api + "/dashboard/webhooks?state=failed")
    rows = driver.find_elements(By.CSS_SELECTOR, "#webhooks tbody tr.webhook")
    check("failed deliveries are listed with their error", len(rows) >= 6 and all("HTTP 503" in row.text for row in rows),
          len(rows))
    receiver_call("POST", "/up")
    event_id = rows[0].get_attribute("data-id")
    before = accepted(event_id)
    rows[0].find_element(By.CSS_SELECTOR, "button.resend").click()
    check("re-send is queued", f"Queued {event_id}" in element(By.ID, "message").text)
    check("the endpoint gets it, the same event id", until(lambda: accepted(event_id) > before))
    driver.get(api + "/dashboard/webhooks?state=failed")
    driver.find_element(By.ID, "resend-all").click()
    check("re-send all failed is queued", "failed deliveries to be sent again" in element(By.ID, "message").text)
    check("and nothing is left failed", until(lambda: not listed("/v1/webhooks?state=failed&limit=100"), 30))
    driver.get(api + "/dashboard/webhooks")
    row = driver.find_element(By.CSS_SELECTOR, f"#webhooks tr[data-id='{event_id}']")
    check("the delivery shows as delivered", row.find_element(By.CSS_SELECTOR, "td.state").text == "delivered")
    shot(driver, "dashboard-webhooks")
    order_id = row.find_element(By.CSS_SELECTOR, "a").get_attribute("href").rsplit("/", 1)[-1]
    driver.get(api + f"/dashboard/orders/{order_id}")
    resent = [r.text for r in driver.find_elements(By.CSS_SELECTOR, "#timeline tr.event") if "webhook_resent" in r.get_attribute("class")]
    check("the order's log says which session re-sent it", any("dashboard " in text and event_id in text for text in resent), resent)

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
