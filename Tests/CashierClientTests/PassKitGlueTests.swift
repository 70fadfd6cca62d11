#if canImport(CashierClientPlatformCheck)
    import Cashier
    import CashierClient
    import CashierClientPlatformCheck
    import CashierServer
    import Contacts
    import Foundation
    import PassKit
    import Synchronization
    import Testing

    import typealias CashierClient.PaymentMethod

    /// The PassKit glue the README shows, compiled on Linux against a declaration of PassKit's
    /// surface (Tests/PlatformStubs) and driven the way PassKit drives it — shipping method, coupon,
    /// shipping address, authorisation, dismissal — against a real merchant server and the sandbox.
    @Suite(.serialized) struct PassKitGlueTests {
        typealias World = CashierClientTests.World

        /// An order with shipping methods, from the merchant's backend.
        func order(_ world: World) async throws -> (id: String, secret: String) {
            var headers = HTTPHeaders()
            headers.add("Authorization", "Bearer \(world.keys.secret)")
            let body = try JSONSerialization.data(withJSONObject: [
                "currency": "CNY",
                "items": [["label": "Latte", "amount": "12.00", "quantity": 2], ["label": "Voucher", "amount": "-4.00"]],
                "shipping_methods": [
                    ["identifier": "standard", "label": "Standard", "amount": "0.00"],
                    ["identifier": "express", "label": "Express", "detail": "Tomorrow", "amount": "10.00"],
                ],
            ])
            let response = try await URLSessionTransport().send(
                HTTPRequest(
                    method: "POST", url: URL(string: world.server.baseURL.absoluteString + "/v1/orders")!, headers: headers, body: body))
            let object = try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
            return (object["id"] as? String ?? "", object["client_secret"] as? String ?? "")
        }

        /// The device's `PKPayment` for a token the sandbox mints for the order as it is now.
        static func payment(_ world: World, orderID: String) async throws -> PKPayment {
            let minted = try await URLSessionTransport().send(
                HTTPRequest(
                    method: "POST", url: world.sandbox.baseURL.appendingPathComponent("sandbox/applepay/token"),
                    body: try JSONSerialization.data(withJSONObject: ["order_id": orderID])))
            let object = try #require(try JSONSerialization.jsonObject(with: minted.body) as? [String: Any])
            let token = try #require(object["token"] as? [String: Any])
            let method = token["paymentMethod"] as? [String: Any] ?? [:]
            let payment = PKPayment()
            payment.token.paymentData = try JSONSerialization.data(withJSONObject: token["paymentData"] ?? [:])
            payment.token.transactionIdentifier = token["transactionIdentifier"] as? String ?? ""
            payment.token.paymentMethod.displayName = method["displayName"] as? String
            payment.token.paymentMethod.network = (method["network"] as? String).map(PKPaymentNetwork.init(rawValue:))
            payment.token.paymentMethod.type = .debit
            let contact = PKContact()
            var name = PersonNameComponents()
            name.givenName = "Mei"
            name.familyName = "Li"
            contact.name = name
            let address = CNMutablePostalAddress()
            address.street = "1 Nanjing Rd\nFloor 3"
            address.city = "Shanghai"
            address.postalCode = "200000"
            address.isoCountryCode = "cn"
            contact.postalAddress = address
            contact.phoneNumber = CNPhoneNumber(stringValue: "+86 21 5555 0100")
            payment.shippingContact = contact
            return payment
        }

        /// What a handler was given, wherever PassKit's glue calls it from.
        final class Box<Value>: @unchecked Sendable {
            private let lock = NSLock()
            private var value: Value?
            /// Keeps `value`. - Returns: whether it is the first given.
            @discardableResult
            func set(_ value: Value) -> Bool {
                lock.withLock {
                    defer { self.value = value }
                    return self.value == nil
                }
            }
            func get() -> Value? { lock.withLock { value } }
        }

        /// What the sheet went through, in order.
        final class Log: Sendable {
            let lines = Mutex<[String]>([])
            func add(_ line: String) { lines.withLock { $0.append(line) } }
            var all: [String] { lines.withLock { $0 } }
        }

        /// Calls a delegate method and waits for its handler.
        static func ask<Value>(_ call: (@escaping (Value) -> Void) -> Void) async -> Value {
            let box = Box<Value>()
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                call { if box.set($0) { continuation.resume() } }  // resumed by the handler's first call
            }
            return box.get()!
        }

        @Test(.timeLimit(.minutes(3))) func theSheetIsDrivenByTheServerFromShippingToAuthorisation() async throws {
            let world = try await World()
            let order = try await order(world)
            let parameters = try await world.client.startPayment(orderID: order.id, clientSecret: order.secret, method: .applePay)
            guard case .applePayRequest(let json) = parameters else { throw CashierClientError(code: "x", message: "\(parameters)") }
            let request = try ApplePayPaymentRequest(json: json).pkPaymentRequest()
            // The request maps exactly: decimal amounts, networks, capabilities, shipping, coupons.
            #expect(request.paymentSummaryItems.map(\.label) == ["2 × Latte", "Voucher", "Standard", "Cashier Sandbox"])
            #expect(
                request.paymentSummaryItems.map { $0.amount } == ["24.00", "-4.00", "0.00", "20.00"].map { NSDecimalNumber(string: $0) })
            #expect(request.supportedNetworks == [.chinaUnionPay, .visa, .masterCard])
            #expect(request.merchantCapabilities.contains(.threeDSecure) && request.merchantCapabilities.contains(.emv))
            #expect(request.shippingMethods?.map { $0.identifier ?? "" } == ["standard", "express"] && request.supportsCouponCode)
            #expect(request.applicationData == Data(order.id.utf8))

            let played = Log()
            let world2 = world
            PKPaymentAuthorizationController.presenter = { controller in
                Task {
                    guard let delegate = controller.delegate else { return }
                    let express = PKShippingMethod(label: "Express", amount: NSDecimalNumber(string: "10.00"))
                    express.identifier = "express"
                    let method = await Self.ask {
                        delegate.paymentAuthorizationController(controller, didSelectShippingMethod: express, handler: $0)
                    }
                    played.add("method \(method.paymentSummaryItems.last?.amount ?? 0)")
                    let coupon = await Self.ask {
                        delegate.paymentAuthorizationController(controller, didChangeCouponCode: "WELCOME10", handler: $0)
                    }
                    played.add("coupon \(coupon.paymentSummaryItems.last?.amount ?? 0) errors \(coupon.errors.count)")
                    let wrong = await Self.ask {
                        delegate.paymentAuthorizationController(controller, didChangeCouponCode: "NOPE", handler: $0)
                    }
                    let code = (wrong.errors.first as? PKPaymentError)?.code
                    played.add("wrong coupon \(code == .couponCodeInvalidError)")
                    let contact = PKContact()
                    let address = CNMutablePostalAddress()
                    address.isoCountryCode = "CN"
                    address.postalCode = "200000"
                    contact.postalAddress = address
                    let home = await Self.ask {
                        delegate.paymentAuthorizationController(controller, didSelectShippingContact: contact, handler: $0)
                    }
                    played.add("contact methods \(home.shippingMethods.map { $0.identifier ?? "" })")
                    let id = controller.paymentRequest.applicationData.map { String(decoding: $0, as: UTF8.self) } ?? ""
                    guard let payment = try? await Self.payment(world2, orderID: id) else {
                        played.add("no token")
                        delegate.paymentAuthorizationControllerDidFinish(controller)  // the payer closes the sheet
                        return
                    }
                    let result = await Self.ask {
                        delegate.paymentAuthorizationController(controller, didAuthorizePayment: payment, handler: $0)
                    }
                    played.add("authorised \(result.status)")
                    delegate.paymentAuthorizationControllerDidFinish(controller)
                }
                return true
            }
            defer { PKPaymentAuthorizationController.presenter = nil }
            let result = try await world.client.pay(
                orderID: order.id, clientSecret: order.secret, method: .applePay,
                launcher: ApplePayLauncher(cashier: world.client, clientSecret: order.secret), timeout: .seconds(10))
            // 24 − 4 = 20; express +10 = 30; WELCOME10 takes 10% of the goods (2.00) = 28.
            #expect(
                played.all == [
                    "method 30", "coupon 28 errors 0", "wrong coupon true", "contact methods [\"express\", \"standard\"]",
                    "authorised success",
                ])
            guard case .paid(let paid) = result else {
                Issue.record("ended as \(result)")
                return
            }
            #expect(paid.amountMinor == 2800)
            // The shipping contact travelled with the token and is kept on the payment.
            var headers = HTTPHeaders()
            headers.add("Authorization", "Bearer \(world.keys.secret)")
            let stored = try await URLSessionTransport().send(
                HTTPRequest(
                    method: "GET", url: URL(string: world.server.baseURL.absoluteString + "/v1/orders/\(order.id)")!, headers: headers))
            let payments = (try JSONSerialization.jsonObject(with: stored.body) as? [String: Any])?["payments"] as? [[String: Any]]
            let contact = payments?.first { $0["status"] as? String == "succeeded" }?["shipping_contact"] as? [String: Any]
            #expect(contact?["addressLines"] as? [String] == ["1 Nanjing Rd", "Floor 3"] && contact?["countryCode"] as? String == "CN")
            #expect(contact?["givenName"] as? String == "Mei" && contact?["phoneNumber"] as? String == "+86 21 5555 0100")
            await world.stop()
        }

        @Test(.timeLimit(.minutes(3))) func aClosedSheetIsCancelledAndAnUnavailableOneIsAnError() async throws {
            let world = try await World()
            let order = try await world.order()
            PKPaymentAuthorizationController.presenter = { controller in
                Task { controller.delegate?.paymentAuthorizationControllerDidFinish(controller) }
                return true
            }
            let launcher = ApplePayLauncher(cashier: world.client, clientSecret: order.secret)
            let closed = try await world.client.pay(orderID: order.id, clientSecret: order.secret, method: .applePay, launcher: launcher)
            #expect(closed == .cancelled)
            PKPaymentAuthorizationController.presenter = { _ in false }
            let error = await #expect(throws: CashierClientError.self) {
                _ = try await world.client.pay(orderID: order.id, clientSecret: order.secret, method: .applePay, launcher: launcher)
            }
            #expect(error?.code == "applepay_unavailable")
            PKPaymentAuthorizationController.presenter = nil
            // Not Apple Pay parameters: refused.
            let refused = await #expect(throws: CashierClientError.self) {
                _ = try await launcher.launch(
                    .wechatQRCode("weixin://x"), for: try await world.client.order(id: order.id, clientSecret: order.secret))
            }
            #expect(refused?.code == "invalid_method")
            await world.stop()
        }

        /// A subscription the order asked for reaches PassKit as a `PKRecurringPaymentRequest`.
        @Test func aSubscriptionReachesTheSheet() async throws {
            let world = try await World()
            var headers = HTTPHeaders()
            headers.add("Authorization", "Bearer \(world.keys.secret)")
            let body = try JSONSerialization.data(withJSONObject: [
                "currency": "CNY", "items": [["label": "Club", "amount": "30.00"]],
                "applepay": [
                    "recurringPaymentRequest": [
                        "paymentDescription": "Coffee club", "managementURL": "https://shop.example.com/club",
                        "regularBilling": [
                            "label": "Monthly", "amount": "30.00", "recurringPaymentIntervalUnit": "month",
                            "recurringPaymentIntervalCount": 1, "recurringPaymentStartDate": "2027-01-01T00:00:00Z",
                        ],
                    ]
                ],
            ])
            let response = try await URLSessionTransport().send(
                HTTPRequest(
                    method: "POST", url: URL(string: world.server.baseURL.absoluteString + "/v1/orders")!, headers: headers, body: body))
            let object = try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
            let id = try #require(object["id"] as? String)
            let secret = try #require(object["client_secret"] as? String)
            guard
                case .applePayRequest(let json) = try await world.client.startPayment(orderID: id, clientSecret: secret, method: .applePay)
            else { throw CashierClientError(code: "x", message: "not Apple Pay") }
            let request = try ApplePayPaymentRequest(json: json).pkPaymentRequest()
            let recurring = try #require(request.recurringPaymentRequest)
            #expect(
                recurring.paymentDescription == "Coffee club" && recurring.managementURL.absoluteString == "https://shop.example.com/club")
            #expect(recurring.regularBilling.amount == NSDecimalNumber(string: "30.00") && recurring.regularBilling.intervalUnit == .month)
            #expect(recurring.regularBilling.startDate == ISO8601DateFormatter().date(from: "2027-01-01T00:00:00Z"))
            #expect(request.deferredPaymentRequest == nil && request.automaticReloadPaymentRequest == nil)
            await world.stop()
        }

        @Test func serverErrorsBecomePassKitErrors() {
            let unserviceable = ApplePaySheet.error(ApplePaySheetError(code: "addressUnserviceable", message: "No"))
            #expect((unserviceable as? PKPaymentError)?.code == .shippingAddressUnserviceableError)
            let phone = ApplePaySheet.error(ApplePaySheetError(code: "shippingContactInvalid", contactField: "phoneNumber", message: "bad"))
            #expect((phone as? PKPaymentError)?.userInfo[PKPaymentErrorContactFieldUserInfoKey] == PKContactField.phoneNumber.rawValue)
            let postal = ApplePaySheet.error(ApplePaySheetError(code: "shippingContactInvalid", contactField: "postalCode", message: "bad"))
            #expect((postal as? PKPaymentError)?.userInfo[PKPaymentErrorPostalAddressUserInfoKey] == "postalCode")
            let billing = ApplePaySheet.error(
                ApplePaySheetError(code: "billingContactInvalid", contactField: "postalAddress", message: "x"))
            #expect((billing as? PKPaymentError)?.code == .billingContactInvalidError)
            #expect(
                (ApplePaySheet.error(ApplePaySheetError(code: "couponCodeExpired", message: "")) as? PKPaymentError)?.code
                    == .couponCodeExpiredError)
            // The simulator's sheet gives no token data: said so, never sent.
            let empty = PKPayment()
            #expect(throws: CashierClientError.self) { _ = try ApplePaySheet.json(empty) }
        }
    }
#endif
