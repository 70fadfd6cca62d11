// Compiled on Apple platforms, and on Linux by the test-only CashierClientPlatformCheck target
// against a declaration of PassKit (Tests/PlatformStubs), so a wrong call fails the build here too.
#if (canImport(PassKit) && !os(Linux)) || PLATFORM_GLUE_CHECK
    #if PLATFORM_GLUE_CHECK
        public import CashierClient
    #endif
    #if canImport(Contacts)
        import Contacts
    #endif
    public import Foundation
    public import PassKit

    /// The Apple Pay sheet, wired to the Cashier server: presents `PKPaymentAuthorizationController`,
    /// sends the authorised payment to the server (which verifies it and has the processor charge
    /// it) and completes the sheet with the server's status, and routes shipping-method,
    /// shipping-contact and coupon-code changes to the server, which reprices the order. The app
    /// never decides an amount or a status.
    ///
    /// ```swift
    /// let outcome = try await ApplePaySheet.present(request, cashier: cashier, order: order, clientSecret: secret)
    /// // .applePayCompleted(answer) once the server answered, .applePayDismissed if the payer closed the sheet
    /// ```
    public final class ApplePaySheet: NSObject, PKPaymentAuthorizationControllerDelegate, @unchecked Sendable {
        public let cashier: CashierClient
        public let orderID: String
        private let clientSecret: String
        private let presentation = ApplePaySheetPresentation()
        private let lock = NSLock()
        /// What the sheet shows now: kept, so a failed server call leaves it as it was.
        private var items: [PKPaymentSummaryItem] = []
        private var methods: [PKShippingMethod] = []

        public init(cashier: CashierClient, orderID: String, clientSecret: String) {
            self.cashier = cashier
            self.orderID = orderID
            self.clientSecret = clientSecret
        }

        /// Presents the sheet for the server's request and returns once it is dismissed.
        public static func present(_ request: PKPaymentRequest, cashier: CashierClient, order: ClientOrder, clientSecret: String)
            async throws -> WalletOutcome
        {
            try await ApplePaySheet(cashier: cashier, orderID: order.id, clientSecret: clientSecret).present(request)
        }

        /// - Returns: ``WalletOutcome/applePayCompleted(_:)`` with the server's answer, or
        ///   ``WalletOutcome/applePayDismissed`` when the payer closed the sheet first.
        /// - Throws: ``CashierClientError`` `applepay_unavailable` when the sheet could not be shown.
        public func present(_ request: PKPaymentRequest) async throws -> WalletOutcome {
            lock.withLock {
                items = request.paymentSummaryItems
                methods = request.shippingMethods ?? []
            }
            return try await presentation.present(request, delegate: self)
        }

        // MARK: PKPaymentAuthorizationControllerDelegate

        public func paymentAuthorizationControllerDidFinish(_ controller: PKPaymentAuthorizationController) {
            presentation.finish(controller)
        }

        public func paymentAuthorizationController(
            _ controller: PKPaymentAuthorizationController, didAuthorizePayment payment: PKPayment,
            handler completion: @escaping (PKPaymentAuthorizationResult) -> Void
        ) {
            let reply = PassKitReply(call: completion)
            let json: Data
            do {
                json = try Self.json(payment)
            } catch {
                completion(PKPaymentAuthorizationResult(status: .failure, errors: nil))
                return
            }
            Task {
                do {
                    let answer = try await cashier.authorizeApplePay(orderID: orderID, clientSecret: clientSecret, paymentJSON: json)
                    presentation.record(answer)
                    reply.call(
                        PKPaymentAuthorizationResult(
                            status: PKPaymentAuthorizationStatus(rawValue: answer.status) ?? .failure,
                            errors: answer.errors.map(Self.error)))
                } catch {
                    // Not answered: the sheet fails, and the order is asked about when the sheet closes.
                    reply.call(PKPaymentAuthorizationResult(status: .failure, errors: nil))
                }
            }
        }

        public func paymentAuthorizationController(
            _ controller: PKPaymentAuthorizationController, didSelectShippingMethod shippingMethod: PKShippingMethod,
            handler completion: @escaping (PKPaymentRequestShippingMethodUpdate) -> Void
        ) {
            let reply = PassKitReply(call: completion)
            let change = ApplePaySheetUpdate.Change.shippingMethod(identifier: shippingMethod.identifier ?? "")
            Task {
                let (items, _, _) = await update(change)
                reply.call(PKPaymentRequestShippingMethodUpdate(paymentSummaryItems: items))
            }
        }

        public func paymentAuthorizationController(
            _ controller: PKPaymentAuthorizationController, didSelectShippingContact contact: PKContact,
            handler completion: @escaping (PKPaymentRequestShippingContactUpdate) -> Void
        ) {
            let reply = PassKitReply(call: completion)
            let change = ApplePaySheetUpdate.Change.shippingContact(Self.contact(contact))
            Task {
                let (items, methods, errors) = await update(change)
                reply.call(PKPaymentRequestShippingContactUpdate(errors: errors, paymentSummaryItems: items, shippingMethods: methods))
            }
        }

        public func paymentAuthorizationController(
            _ controller: PKPaymentAuthorizationController, didChangeCouponCode couponCode: String,
            handler completion: @escaping (PKPaymentRequestCouponCodeUpdate) -> Void
        ) {
            let reply = PassKitReply(call: completion)
            Task {
                let (items, methods, errors) = await update(.couponCode(couponCode))
                reply.call(PKPaymentRequestCouponCodeUpdate(errors: errors, paymentSummaryItems: items, shippingMethods: methods))
            }
        }

        /// Asks the server for the sheet after `change`; on failure the sheet stays as it was.
        private func update(_ change: ApplePaySheetUpdate.Change) async -> ([PKPaymentSummaryItem], [PKShippingMethod], [any Error]) {
            do {
                let update = try await cashier.updateApplePaySheet(orderID: orderID, clientSecret: clientSecret, change: change)
                return lock.withLock {
                    items = update.summaryItems.map(\.pkSummaryItem)
                    if let methods = update.shippingMethods { self.methods = methods.map(\.pkShippingMethod) }
                    return (items, methods, update.errors.map(Self.error))
                }
            } catch {
                return lock.withLock {
                    (items, methods, [PKPaymentRequest.paymentShippingAddressUnserviceableError(withLocalizedDescription: nil)])
                }
            }
        }

        // MARK: Mapping

        /// The `PKPayment` as the server takes it (``ApplePayPayment/json(paymentData:displayName:network:type:transactionIdentifier:billingContact:shippingContact:)``).
        public static func json(_ payment: PKPayment) throws -> Data {
            let method = payment.token.paymentMethod
            let type =
                switch method.type {
                case .debit: "debit"
                case .credit: "credit"
                case .prepaid: "prepaid"
                case .store: "store"
                case .eMoney: "eMoney"
                default: "unknown"
                }
            return try ApplePayPayment.json(
                paymentData: payment.token.paymentData, displayName: method.displayName, network: method.network?.rawValue, type: type,
                transactionIdentifier: payment.token.transactionIdentifier, billingContact: payment.billingContact.map(contact),
                shippingContact: payment.shippingContact.map(contact))
        }

        /// A `PKContact` in Apple Pay JS's fields.
        public static func contact(_ contact: PKContact) -> ApplePayContact {
            var result = ApplePayContact(
                givenName: contact.name?.givenName, familyName: contact.name?.familyName, emailAddress: contact.emailAddress,
                phoneNumber: contact.phoneNumber?.stringValue)
            if let address = contact.postalAddress {
                let lines = address.street.split(separator: "\n").map(String.init)
                result.addressLines = lines.isEmpty ? nil : lines
                result.subLocality = address.subLocality
                result.locality = address.city
                result.subAdministrativeArea = address.subAdministrativeArea
                result.administrativeArea = address.state
                result.postalCode = address.postalCode
                result.country = address.country
                result.countryCode = address.isoCountryCode.uppercased()
            }
            return result
        }

        /// The server's sheet error as PassKit's.
        public static func error(_ error: ApplePaySheetError) -> any Error {
            let message = error.message.isEmpty ? nil : error.message
            switch error.code {
            case "addressUnserviceable": return PKPaymentRequest.paymentShippingAddressUnserviceableError(withLocalizedDescription: message)
            case "couponCodeInvalid": return PKPaymentRequest.paymentCouponCodeInvalidError(localizedDescription: message)
            case "couponCodeExpired": return PKPaymentRequest.paymentCouponCodeExpiredError(localizedDescription: message)
            case "billingContactInvalid":
                return PKPaymentRequest.paymentBillingAddressInvalidError(
                    withKey: postalAddressKey(error.contactField), localizedDescription: message)
            default:
                switch error.contactField {
                case "phoneNumber":
                    return PKPaymentRequest.paymentContactInvalidError(withContactField: .phoneNumber, localizedDescription: message)
                case "emailAddress":
                    return PKPaymentRequest.paymentContactInvalidError(withContactField: .emailAddress, localizedDescription: message)
                case "name":
                    return PKPaymentRequest.paymentContactInvalidError(withContactField: .name, localizedDescription: message)
                default:
                    return PKPaymentRequest.paymentShippingAddressInvalidError(
                        withKey: postalAddressKey(error.contactField), localizedDescription: message)
                }
            }
        }

        /// `CNPostalAddress` keys (`postalCode`, `city`, `ISOCountryCode`, …) for Apple Pay JS's field names.
        static func postalAddressKey(_ field: String?) -> String {
            switch field {
            case "locality": "city"
            case "administrativeArea": "state"
            case "countryCode": "ISOCountryCode"
            case "addressLines": "street"
            case let field?: field == "postalAddress" ? "postalCode" : field
            case nil: "postalCode"
            }
        }
    }

    /// The ready-made launcher for ``CashierClient/pay(orderID:clientSecret:method:launcher:timeout:returnURL:)``:
    /// the server's request as a `PKPaymentRequest`, the sheet wired to the server.
    public struct ApplePayLauncher: PaymentLauncher {
        public let cashier: CashierClient
        public let clientSecret: String

        public init(cashier: CashierClient, clientSecret: String) {
            self.cashier = cashier
            self.clientSecret = clientSecret
        }

        public func launch(_ parameters: WalletParameters, for order: ClientOrder) async throws -> WalletOutcome {
            guard case .applePayRequest(let json) = parameters else {
                throw CashierClientError(code: "invalid_method", message: "ApplePayLauncher launches Apple Pay only")
            }
            let request = try ApplePayPaymentRequest(json: json).pkPaymentRequest()
            return try await ApplePaySheet.present(request, cashier: cashier, order: order, clientSecret: clientSecret)
        }
    }
#endif
