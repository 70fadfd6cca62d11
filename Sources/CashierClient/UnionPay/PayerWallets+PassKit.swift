// Compiled where PassKit exists, and on Linux by the test-only CashierClientPlatformCheck target.
#if (canImport(PassKit) && !os(Linux)) || PLATFORM_GLUE_CHECK
    #if PLATFORM_GLUE_CHECK
        public import CashierClient
    #endif
    public import PassKit

    extension PayerWallets {
        /// Asks PassKit which of `networks` Apple Pay can pay with on this device
        /// (`canMakePayments(usingNetworks:)`, one network at a time), for the server's choice of
        /// method: `unionpay.applepay` needs `.chinaUnionPay`.
        public static func applePay(networks: [PKPaymentNetwork] = [.chinaUnionPay]) -> PayerWallets {
            PayerWallets(
                applePayNetworks: networks.filter { PKPaymentAuthorizationController.canMakePayments(usingNetworks: [$0]) }.map(\.rawValue))
        }
    }
#endif
