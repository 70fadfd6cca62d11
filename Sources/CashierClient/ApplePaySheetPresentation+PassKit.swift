// Compiled on Apple platforms, and on Linux by the test-only CashierClientPlatformCheck target
// against a declaration of PassKit (Tests/PlatformStubs), so a wrong call fails the build here too.
#if (canImport(PassKit) && !os(Linux)) || PLATFORM_GLUE_CHECK
    #if PLATFORM_GLUE_CHECK
        import CashierClient
    #endif
    import Foundation
    import PassKit

    /// What ``ApplePaySheet`` and ``AgreementSheet`` share: presenting a
    /// `PKPaymentAuthorizationController` with the sheet as its delegate, and ending the wait once
    /// the sheet is dismissed, with the answer the sheet recorded or the payer's dismissal.
    final class ApplePaySheetPresentation: @unchecked Sendable {
        private let lock = NSLock()
        private var continuation: CheckedContinuation<WalletOutcome, any Error>?
        private var controller: PKPaymentAuthorizationController?
        private var answer: ApplePayAuthorization?

        /// Presents the sheet for `request`, PassKit calling `delegate`, and returns once ``finish(_:)``
        /// has dismissed it.
        /// - Returns: ``WalletOutcome/applePayCompleted(_:)`` with the ``record(_:)``ed answer, or
        ///   ``WalletOutcome/applePayDismissed`` when the payer closed the sheet first.
        /// - Throws: ``CashierClientError`` `applepay_unavailable` when the sheet could not be shown.
        func present(_ request: PKPaymentRequest, delegate: any PKPaymentAuthorizationControllerDelegate) async throws
            -> WalletOutcome
        {
            try await withCheckedThrowingContinuation { continuation in
                let controller = PKPaymentAuthorizationController(paymentRequest: request)
                lock.withLock {
                    self.continuation = continuation
                    self.controller = controller  // PassKit holds its delegate weakly; the sheet holds the controller until it ends
                }
                controller.delegate = delegate
                controller.present { shown in
                    guard !shown else { return }
                    self.end(
                        .failure(
                            CashierClientError(
                                code: "applepay_unavailable",
                                message: "the Apple Pay sheet could not be shown (no card, or Apple Pay is restricted on this device)")))
                }
            }
        }

        /// Keeps the answer the sheet was completed with, for when it closes.
        func record(_ answer: ApplePayAuthorization) {
            lock.withLock { self.answer = answer }
        }

        /// `paymentAuthorizationControllerDidFinish`: dismisses the sheet and ends the wait.
        func finish(_ controller: PKPaymentAuthorizationController) {
            controller.dismiss {
                let answer = self.lock.withLock { self.answer }
                self.end(.success(answer.map(WalletOutcome.applePayCompleted) ?? .applePayDismissed))
            }
        }

        private func end(_ result: Result<WalletOutcome, any Error>) {
            let continuation = lock.withLock {
                defer {
                    self.continuation = nil
                    self.controller = nil
                }
                return self.continuation
            }
            continuation?.resume(with: result)
        }
    }

    /// PassKit's completion handlers, carried into the task that asks the server.
    struct PassKitReply<Value>: @unchecked Sendable {
        let call: (Value) -> Void
    }
#endif
