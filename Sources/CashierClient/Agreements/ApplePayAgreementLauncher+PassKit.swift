// Compiled on Apple platforms, and on Linux by the test-only CashierClientPlatformCheck target
// against a declaration of PassKit (Tests/PlatformStubs), so a wrong call fails the build here too.
#if (canImport(PassKit) && !os(Linux)) || PLATFORM_GLUE_CHECK
    #if PLATFORM_GLUE_CHECK
        public import CashierClient
    #endif
    public import Foundation
    import PassKit

    /// Apple Pay's signing (`applepay`): the launch's payment request, with its
    /// `recurringPaymentRequest`, on the Apple Pay sheet; the token goes to your backend through
    /// `authorize` (which calls `POST /v1/agreements/{id}/authorize`, charging the first period
    /// and storing the card at the processor) while the sheet waits, and the sheet completes with
    /// its answer. The agreement's state is then the server's, asked by ``AgreementFlow``.
    public struct ApplePayAgreementLauncher: AgreementLauncher {
        private let authorize: AgreementFlow.Authorize

        /// - Parameter authorize: sends the sheet's token (the `PKPayment` as JSON) to your backend;
        ///   throwing fails the sheet.
        public init(authorize: @escaping AgreementFlow.Authorize) {
            self.authorize = authorize
        }

        /// Shows the sheet and returns once it is dismissed.
        /// - Parameters:
        ///   - launch: a ``AgreementLaunch/applePayRequest(_:)`` launch.
        ///   - agreement: the agreement it belongs to.
        /// - Returns: ``WalletOutcome/applePayCompleted(_:)`` (status 0 when your backend took the
        ///   token, 1 when not), or ``WalletOutcome/applePayDismissed`` when the payer closed the sheet first.
        /// - Throws: ``CashierClientError`` `invalid_method` for another kind, `invalid_response` for
        ///   a request the sheet cannot show, `applepay_unavailable` when the sheet could not be shown.
        public func launch(_ launch: AgreementLaunch, for agreement: Agreement) async throws -> WalletOutcome {
            guard case .applePayRequest(let json) = launch else {
                throw CashierClientError(code: "invalid_method", message: "ApplePayAgreementLauncher opens Apple Pay agreements only")
            }
            let request = try ApplePayPaymentRequest(json: json).pkPaymentRequest()
            let id = agreement.id
            let authorize = authorize
            return try await AgreementSheet { payment in try await authorize(id, payment) }.present(request)
        }
    }

    /// The sheet for an agreement: PassKit's delegate, handing the token to `send` and completing
    /// with its answer.
    final class AgreementSheet: NSObject, PKPaymentAuthorizationControllerDelegate, @unchecked Sendable {
        private let send: @Sendable (Data) async throws -> Void
        private let presentation = ApplePaySheetPresentation()
        private let lock = NSLock()
        /// What the sheet shows: an agreement's sheet asks no shipping and takes no coupon, so
        /// every change is answered with it unchanged.
        private var items: [PKPaymentSummaryItem] = []
        private var methods: [PKShippingMethod] = []

        init(send: @escaping @Sendable (Data) async throws -> Void) {
            self.send = send
        }

        func present(_ request: PKPaymentRequest) async throws -> WalletOutcome {
            lock.withLock {
                items = request.paymentSummaryItems
                methods = request.shippingMethods ?? []
            }
            return try await presentation.present(request, delegate: self)
        }

        func paymentAuthorizationControllerDidFinish(_ controller: PKPaymentAuthorizationController) {
            presentation.finish(controller)
        }

        func paymentAuthorizationController(
            _ controller: PKPaymentAuthorizationController, didAuthorizePayment payment: PKPayment,
            handler completion: @escaping (PKPaymentAuthorizationResult) -> Void
        ) {
            let reply = PassKitReply(call: completion)
            guard let json = try? ApplePaySheet.json(payment) else {
                completion(PKPaymentAuthorizationResult(status: .failure, errors: nil))
                return
            }
            Task {
                let status: PKPaymentAuthorizationStatus
                do {
                    try await send(json)
                    status = .success
                } catch {
                    status = .failure  // the agreement is asked about when the sheet closes
                }
                presentation.record(ApplePayAuthorization(status: status.rawValue, orderStatus: .unknown))
                reply.call(PKPaymentAuthorizationResult(status: status, errors: nil))
            }
        }

        func paymentAuthorizationController(
            _ controller: PKPaymentAuthorizationController, didSelectShippingMethod shippingMethod: PKShippingMethod,
            handler completion: @escaping (PKPaymentRequestShippingMethodUpdate) -> Void
        ) {
            completion(PKPaymentRequestShippingMethodUpdate(paymentSummaryItems: lock.withLock { self.items }))
        }

        func paymentAuthorizationController(
            _ controller: PKPaymentAuthorizationController, didSelectShippingContact contact: PKContact,
            handler completion: @escaping (PKPaymentRequestShippingContactUpdate) -> Void
        ) {
            let shown = lock.withLock { (items: self.items, methods: self.methods) }
            completion(PKPaymentRequestShippingContactUpdate(errors: nil, paymentSummaryItems: shown.items, shippingMethods: shown.methods))
        }

        func paymentAuthorizationController(
            _ controller: PKPaymentAuthorizationController, didChangeCouponCode couponCode: String,
            handler completion: @escaping (PKPaymentRequestCouponCodeUpdate) -> Void
        ) {
            let shown = lock.withLock { (items: self.items, methods: self.methods) }
            completion(PKPaymentRequestCouponCodeUpdate(errors: nil, paymentSummaryItems: shown.items, shippingMethods: shown.methods))
        }
    }
#endif
