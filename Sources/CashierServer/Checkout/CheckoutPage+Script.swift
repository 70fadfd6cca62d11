/// The checkout page's one script, allowed by its hash. It reads everything from the `data-`
/// attributes of `#checkout` (escaped by the server), so the script itself never changes:
///
/// - follows the order's event stream and turns the page "paid" (then goes to `data-return-url`,
///   an origin the server checked) or "closed" as the events arrive — no polling;
/// - follows a hand-off link to the wallet (`data-handoff`);
/// - hands JSAPI parameters to `WeixinJSBridge` in WeChat's browser (`data-jsapi`), back to the
///   choice when the payer cancels;
/// - shows Apple Pay only where `ApplePaySession.canMakePayments()`, and runs its session through
///   `/pay/{id}/applepay/…` with the client secret.
extension CheckoutPage {
    static let script = """
        (function () {
          var main = document.getElementById('checkout');
          if (!main) { return; }
          var d = main.dataset;
          var stream = null;
          var settled = false;
          function status(text, kind) {
            if (settled) { return; }
            var badge = document.getElementById('status');
            badge.textContent = text;
            badge.className = 'badge ' + kind;
            main.setAttribute('data-status', kind);
          }
          function hideChoice() {
            ['methods', 'native', 'handoff', 'note', 'jsapi-waiting', 'other'].forEach(function (id) {
              var element = document.getElementById(id);
              if (element) { element.hidden = true; }
            });
          }
          function paid() {
            if (stream) { stream.close(); }
            hideChoice();
            if (d.returnUrl) {
              status(d.textReturning, 'paid');
              setTimeout(function () { window.location.assign(d.returnUrl); }, 1200);
            } else {
              status(d.textPaid, 'paid');
            }
            settled = true;  // nothing later (a wallet's own answer) changes what the page says
          }
          function over(text) {
            if (stream) { stream.close(); }
            hideChoice();
            status(text, 'closed');
            settled = true;
          }
          function follow() {
            if (!window.EventSource || !d.stream) { return; }
            stream = new EventSource(d.stream);
            stream.addEventListener('order', function (event) {
              var order = JSON.parse(event.data);
              if (order.status === 'paid' || order.status === 'partially_refunded') { paid(); }
              else if (order.status === 'refunded') { over(d.textRefunded); }
              else if (order.status === 'closed') { over(d.textClosed); }
            });
          }
          if (d.status === 'paid' || d.status === 'partially_refunded') { paid(); return; }
          if (d.payable !== 'yes') { return; }
          if (d.handoff) {
            window.location.replace(document.getElementById('continue').href);
            return;
          }
          follow();
          if (d.jsapi) {
            var parameters = JSON.parse(d.jsapi);
            var invoke = function () {
              window.WeixinJSBridge.invoke('getBrandWCPayRequest', parameters, function (result) {
                if (result && result.err_msg === 'get_brand_wcpay_request:ok') {
                  status(d.textConfirming, 'pending');
                  hideChoice();
                } else {
                  window.location.replace(d.choice + '&returned=1');
                }
              });
            };
            if (window.WeixinJSBridge) { invoke(); }
            else { document.addEventListener('WeixinJSBridgeReady', invoke, false); }
          }
          var apple = document.getElementById('pay-applepay');
          if (apple && window.ApplePaySession && window.ApplePaySession.canMakePayments()) {
            apple.hidden = false;
            apple.addEventListener('click', function () { applePay(); });
          }
          function post(step, body) {
            body.client_secret = d.secret;
            return fetch(d.api + step, {
              method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body), credentials: 'omit'
            }).then(function (response) { return response.json(); });
          }
          function applePay() {
            post('request', {}).then(function (started) {
              if (!started.payment_request) { status(d.textNotCompleted, 'failed'); return; }
              var session = new window.ApplePaySession(3, started.payment_request);
              // An answer that is the server's error (or none) ends the sheet: handed on, Safari
              // would reject it and leave the payer waiting for the sheet's own timeout.
              function fail() {
                try { session.abort(); } catch (ignored) { }
                status(d.textNotCompleted, 'failed');
              }
              session.onvalidatemerchant = function (event) {
                post('session', { validation_url: event.validationURL }).then(function (merchantSession) {
                  if (!merchantSession || merchantSession.error) { fail(); return; }
                  session.completeMerchantValidation(merchantSession);
                }, fail);
              };
              function update(body, complete) {
                post('update', body).then(function (answer) {
                  if (!answer || !answer.newTotal) { fail(); return; }
                  complete(answer);
                }, fail);
              }
              session.onshippingmethodselected = function (event) {
                update({ shipping_method: event.shippingMethod.identifier }, function (answer) {
                  session.completeShippingMethodSelection(answer);
                });
              };
              session.onshippingcontactselected = function (event) {
                update({ shipping_contact: event.shippingContact }, function (answer) {
                  session.completeShippingContactSelection(answer);
                });
              };
              session.oncouponcodechanged = function (event) {
                update({ coupon_code: event.couponCode }, function (answer) {
                  session.completeCouponCodeChange(answer);
                });
              };
              // Apple's status (0 is success; a refusal lets the payer try again on the sheet), or
              // the server's error or no answer at all (null), which ends the sheet as a failure.
              function authorized(answer) {
                var apple = answer && typeof answer.status === 'number';
                session.completePayment({ status: apple ? answer.status : 1, errors: (apple && answer.errors) || [] });
                if (!apple) { status(d.textNotCompleted, 'failed'); } else if (answer.status === 0) { status(d.textConfirming, 'pending'); }
              }
              session.onpaymentauthorized = function (event) {
                post('authorize', { token: event.payment }).then(authorized, function () { authorized(null); });
              };
              session.oncancel = function () { status(d.textNotCompleted, 'pending'); };
              session.begin();
            });
          }
        })();
        """
}
