import ApplePay
import Cashier
import CashierStore
import Foundation

/// The Apple Pay payment sheet's shipping-contact, shipping-method and coupon-code events,
/// answered with the new lines and total (Apple Pay JS's `ApplePayShippingMethodUpdate`,
/// `…ContactUpdate`, `…CouponCodeUpdate`, which PassKit's `PKPaymentRequest…Update` mirror) or
/// Apple's errors. The app names a method or a code; the server prices it and changes the order —
/// by compare-and-set, while it is unpaid — so the token that follows must carry the new total.
struct ApplePaySheetService: Sendable {
    let ledger: Ledger

    /// How many codes that are not the merchant's one order takes: past them, every coupon code is
    /// refused, so codes cannot be guessed through one order (each order costs the payer-address throttle too).
    static let maximumCouponGuesses = 5
    var store: any OrderStore { ledger.store }

    /// Applies one sheet event to order `id`. - Returns: the update's JSON (the sheet's new
    /// summary, methods and errors, and the order's total), as the API sends it.
    func update(_ id: String, _ body: SheetUpdateBody, by identity: Identity) async throws -> [UInt8] {
        guard let applePay = ledger.configuration.applePay else { throw ApplePayAuthorizer.notConfigured }
        guard [body.shipping_method != nil, body.shipping_contact != nil, body.coupon_code != nil].filter({ $0 }).count == 1 else {
            throw RequestProblem("give exactly one of shipping_method, shipping_contact and coupon_code")
        }
        for _ in 0..<5 {
            let order = try await ledger.orders.require(identity, id: id, clientSecret: body.client_secret)
            // The sheet of a paid or closed order is over, whatever the change would have been.
            guard order.status == .created || order.status == .pending else {
                throw StoreError(.illegalTransition, "order \(id) is \(order.status.rawValue): its sheet can no longer change")
            }
            let before = OrderSheet.read(order)
            var sheet = before
            var errors: [ApplePay.SheetError] = []
            var methods: [ShippingMethod]?
            var refused: String?
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
                guard (sheet.couponGuesses ?? 0) < Self.maximumCouponGuesses else {
                    throw APIError.invalidState(
                        "order \(id) was sent \(Self.maximumCouponGuesses) coupon codes that are not yours: it takes no more (create another order)"
                    )
                }
                if code.isEmpty {
                    sheet.coupon = nil
                } else if let coupon = ledger.configuration.coupons.first(where: { $0.code.caseInsensitiveCompare(code) == .orderedSame }) {
                    if let expiry = coupon.expiresAt, expiry <= ledger.clock.now() {
                        errors.append(ApplePay.SheetError(code: .couponCodeExpired, message: "The code \(code) has expired."))
                    } else {
                        sheet.coupon = .init(
                            code: coupon.code, label: coupon.label,
                            amount: try coupon.amount(on: try sheet.goodsTotal(in: order.total.currency)))
                    }
                } else {
                    errors.append(ApplePay.SheetError(code: .couponCodeInvalid, message: "The code \(code) is not valid."))
                    // Counted on the order by compare-and-set (guesses at once are each counted) and logged.
                    sheet.couponGuesses = (sheet.couponGuesses ?? 0) + 1
                    refused = code
                }
            }
            var current = order
            if sheet != before {
                let total = try sheet.total(in: order.total.currency)
                guard total.isPositive else { throw RequestProblem.unprocessable("the order's total would not be more than zero") }
                let itemsJSON = String(decoding: try JSONEncoder().encode(try sheet.lines()), as: UTF8.self)
                let record =
                    refused.map {
                        EventRecord(
                            kind: .couponRefused,
                            detail: Ledger.detail(["code": String($0.prefix(64)), "guesses": "\(sheet.couponGuesses ?? 0)"]))
                    }
                    ?? EventRecord(
                        kind: .sheetUpdated,
                        detail: Ledger.detail([
                            "total": total.decimalString, "shipping_method": sheet.selectedShipping ?? "",
                            "coupon": sheet.coupon?.code ?? "",
                        ]))
                guard
                    let repriced = try await store.reprice(
                        orderID: order.id, version: order.version, itemsJSON: itemsJSON, total: total, sheetJSON: try sheet.json(),
                        record: record, now: ledger.clock.now())
                else { continue }  // changed meanwhile: read it again
                current = repriced
                if refused != nil { ledger.metrics.increment("cashier_coupon_codes_refused_total") }
            }
            let update = ApplePay.PaymentRequestUpdate(
                summary: try ApplePaySheet(configuration: applePay).request(for: current).summary(),
                shippingMethods: methods.map { list in list.sorted { first, _ in first.identifier == sheet.selectedShipping } },
                errors: errors)
            var object = update.jsonObject()
            object["order_total"] = current.total.decimalString
            object["order_total_minor"] = current.total.minorUnits
            return try APIJSON.object(object)
        }
        throw APIError(status: 409, code: "busy", message: "order \(id) kept changing; try again")
    }
}
