// Compiled where Alipay's AlipaySDK is linked (an iOS app), and on Linux by the test-only
// CashierClientPlatformCheck target against a declaration of its surface (Tests/PlatformStubs).
#if (canImport(AlipaySDK) && !os(Linux)) || PLATFORM_GLUE_CHECK
    #if PLATFORM_GLUE_CHECK
        public import CashierClient
    #endif
    import AlipaySDK
    public import Foundation

    /// Alipay in the app (`alipay.app`): the server's signed order string handed to AlipaySDK; its
    /// result (`resultStatus`, `memo`, `result`) is then confirmed with the server, never trusted.
    public struct AlipayLauncher: PaymentLauncher {
        /// The URL scheme Alipay reopens the app with (registered in Info.plist).
        public let scheme: String

        public init(scheme: String) {
            self.scheme = scheme
        }

        public func launch(_ parameters: WalletParameters, for order: ClientOrder) async throws -> WalletOutcome {
            guard case .alipayOrderString(let orderString) = parameters else {
                throw CashierClientError(code: "invalid_method", message: "AlipayLauncher launches Alipay app payments (alipay.app) only")
            }
            return await withCheckedContinuation { continuation in
                AlipaySDK.defaultService().payOrder(orderString, fromScheme: scheme) { result in
                    continuation.resume(returning: Self.outcome(result))
                }
            }
        }

        /// Alipay's result dictionary as a wallet outcome (no result: `6004`, unknown).
        public static func outcome(_ result: [AnyHashable: Any]?) -> WalletOutcome {
            .alipay(
                resultStatus: result?["resultStatus"] as? String ?? "6004", memo: result?["memo"] as? String ?? "",
                result: result?["result"] as? String ?? "")
        }

        /// For `application(_:open:options:)` when Alipay reopens the app by URL: the outcome, to
        /// pass to ``CashierClient/finish(orderID:clientSecret:after:timeout:)``.
        public static func handleOpen(_ url: URL, _ completion: @escaping @Sendable (WalletOutcome) -> Void) {
            AlipaySDK.defaultService().processOrder(withPaymentResult: url) { result in completion(outcome(result)) }
        }
    }
#endif
