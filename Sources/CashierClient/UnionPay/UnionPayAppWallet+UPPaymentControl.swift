// Compiled where UnionPay's payment control (UPPaymentControl, 云闪付) is linked, and on Linux by
// the test-only CashierClientPlatformCheck target against a declaration of its surface.
#if (canImport(UPPaymentControl) && !os(Linux)) || PLATFORM_GLUE_CHECK
    #if PLATFORM_GLUE_CHECK
        public import CashierClient
    #endif
    public import Foundation
    public import UIKit
    import UPPaymentControl

    /// 云闪付 / UnionPay's card control (`unionpay.app`): `UPPaymentControl` opens the UnionPay app
    /// (or its card page) with the `tn`; the result comes back when the app is reopened by URL —
    /// pass it to ``handleOpen(_:)`` — and is then confirmed with the server.
    ///
    /// Info.plist needs the URL scheme given here and `LSApplicationQueriesSchemes` `uppaysdk`,
    /// `uppaywallet`, `uppayx1`, `uppayx2`, `uppayx3`.
    ///
    /// ```swift
    /// let wallet = UnionPayAppWallet(scheme: "shopunionpay") { [weak self] in self }
    /// func application(_ app: UIApplication, open url: URL, options: …) -> Bool { wallet.handleOpen(url) }
    /// ```
    public final class UnionPayAppWallet: NSObject, UnionPayWallet, @unchecked Sendable {
        /// The URL scheme UnionPay reopens the app with (`fromScheme:`).
        public let scheme: String
        private let presenter: @MainActor @Sendable () -> UIViewController?
        private let handoff = WalletHandoff<UnionPayResult>()

        public init(scheme: String, presenter: @escaping @MainActor @Sendable () -> UIViewController?) {
            self.scheme = scheme
            self.presenter = presenter
        }

        public func pay(_ payment: UnionPayPayment) async throws -> UnionPayResult {
            await handoff.wait(supersededWith: UnionPayResult(status: .cancel, errorDescription: "superseded by another payment")) {
                Task { @MainActor in
                    guard let controller = self.presenter() else {
                        self.deliver(UnionPayResult(status: .failure, errorDescription: "no view controller to present from"))
                        return
                    }
                    let started = UPPaymentControl.default().startPay(
                        payment.tn, fromScheme: self.scheme, mode: payment.mode.rawValue, viewController: controller)
                    if !started { self.deliver(UnionPayResult(status: .failure, errorDescription: "UPPaymentControl could not start")) }
                }
            }
        }

        /// For `application(_:open:options:)`: `true` when the URL was UnionPay's answer.
        public func handleOpen(_ url: URL) -> Bool {
            guard url.host == "uppayresult" else { return false }
            UPPaymentControl.default().handlePaymentResult(url) { code, _ in
                self.deliver(UnionPayResult(code: code ?? "fail"))
            }
            return true
        }

        private func deliver(_ result: UnionPayResult) { handoff.deliver(result) }
    }
#endif
