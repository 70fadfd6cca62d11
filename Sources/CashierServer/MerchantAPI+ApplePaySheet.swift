import ApplePay
import Cashier
import CashierHTTP
import CashierStore
import Foundation

/// `POST /v1/orders/{id}/payments/applepay/update`: the payment sheet's shipping-contact,
/// shipping-method and coupon-code events, answered with the new lines and total (Apple Pay JS's
/// `ApplePayShippingMethodUpdate`, `…ContactUpdate`, `…CouponCodeUpdate`, which PassKit's
/// `PKPaymentRequest…Update` mirror) or Apple's errors. The app names a method or a code; the
/// server prices it and changes the order — by compare-and-set, while it is unpaid — so the
/// token that follows must carry the new total.
extension MerchantAPI {
    struct SheetUpdateBody: Decodable {
        let client_secret: String?
        let shipping_method: String?
        /// Apple Pay JS's redacted `ApplePayPaymentContact` (country, postal code, locality).
        let shipping_contact: RedactedContact?
        /// `""` removes the coupon.
        let coupon_code: String?
    }

    /// What the sheet reveals of an address before authorisation; other fields are ignored.
    struct RedactedContact: Decodable {
        let countryCode: String?
        let postalCode: String?
        let locality: String?
        let administrativeArea: String?
    }

    func updateApplePaySheet(_ request: HTTPServerRequest, id: String) async -> HTTPServerResponse {
        guard let identity = await identify(request) else { return Self.unauthorized }
        guard let applePay = configuration.applePay else {
            return Self.applePayNotConfigured
        }
        do {
            let body = try RequestProblem.decode(
                SheetUpdateBody.self, from: request,
                expected: #"{"shipping_method":"express"} or {"shipping_contact":{"countryCode":"US",…}} or {"coupon_code":"WELCOME10"}"#)
            guard [body.shipping_method != nil, body.shipping_contact != nil, body.coupon_code != nil].filter({ $0 }).count == 1 else {
                throw RequestProblem("give exactly one of shipping_method, shipping_contact and coupon_code")
            }
            for _ in 0..<5 {
                guard let (order, _) = try await authorizedOrder(identity, id: id, clientSecret: body.client_secret) else {
                    return .error(status: 404, code: "not_found", message: "no order \(id) for these credentials")
                }
                // The sheet of a paid or closed order is over, whatever the change would have been.
                guard order.status == .created || order.status == .pending else {
                    throw StoreError(.illegalTransition, "order \(id) is \(order.status.rawValue): its sheet can no longer change")
                }
                let before = OrderSheet.read(order)
                var sheet = before
                var errors: [ApplePay.SheetError] = []
                var methods: [ShippingMethod]?
                if let identifier = body.shipping_method {
                    guard sheet.shippingMethods.contains(where: { $0.identifier == identifier }) else {
                        throw RequestProblem.unprocessable("shipping method '\(identifier)' is not offered for order \(id)")
                    }
                    sheet.selectedShipping = identifier
                } else if let contact = body.shipping_contact {
                    let country = (contact.countryCode ?? "").uppercased()
                    if !applePay.shippingCountries.isEmpty, !applePay.shippingCountries.contains(country) {
                        errors.append(
                            ApplePay.SheetError(
                                code: .addressUnserviceable, contactField: "countryCode",
                                message: "\(applePay.displayName) does not ship to \(country.isEmpty ? "this country" : country)."))
                        methods = []
                    } else if applePay.requiredShippingContactFields.contains(.postalAddress), (contact.postalCode ?? "").isEmpty,
                        country != "HK"
                    {
                        errors.append(
                            ApplePay.SheetError(code: .shippingContactInvalid, contactField: "postalCode", message: "Enter a postal code."))
                    } else {
                        methods = sheet.shippingMethods
                    }
                } else if let code = body.coupon_code {
                    if code.isEmpty {
                        sheet.coupon = nil
                    } else if let coupon = configuration.coupons.first(where: { $0.code.caseInsensitiveCompare(code) == .orderedSame }) {
                        if let expiry = coupon.expiresAt, expiry <= clock.now() {
                            errors.append(ApplePay.SheetError(code: .couponCodeExpired, message: "The code \(code) has expired."))
                        } else {
                            sheet.coupon = .init(
                                code: coupon.code, label: coupon.label,
                                amount: try coupon.amount(on: try sheet.goodsTotal(in: order.total.currency)))
                        }
                    } else {
                        errors.append(ApplePay.SheetError(code: .couponCodeInvalid, message: "The code \(code) is not valid."))
                    }
                }
                var current = order
                if sheet != before {
                    let total = try sheet.total(in: order.total.currency)
                    guard total.isPositive else { throw RequestProblem.unprocessable("the order's total would not be more than zero") }
                    let itemsJSON = String(decoding: try JSONEncoder().encode(try sheet.lines()), as: UTF8.self)
                    let record = EventRecord(
                        kind: .sheetUpdated,
                        detail: Self.detail([
                            "total": total.decimalString, "shipping_method": sheet.selectedShipping ?? "",
                            "coupon": sheet.coupon?.code ?? "",
                        ]))
                    guard
                        let repriced = try await store.reprice(
                            orderID: order.id, version: order.version, itemsJSON: itemsJSON, total: total, sheetJSON: try sheet.json(),
                            record: record, now: clock.now())
                    else { continue }  // changed meanwhile: read it again
                    current = repriced
                }
                let update = ApplePay.PaymentRequestUpdate(
                    summary: try ApplePaySheet(configuration: applePay).request(for: current).summary(),
                    shippingMethods: methods.map { list in list.sorted { first, _ in first.identifier == sheet.selectedShipping } },
                    errors: errors)
                var object = update.jsonObject()
                object["order_total"] = current.total.decimalString
                object["order_total_minor"] = current.total.minorUnits
                return .json(object: object)
            }
            return .error(status: 409, code: "busy", message: "order \(id) kept changing; try again")
        } catch {
            return Self.failure(error)
        }
    }
}
