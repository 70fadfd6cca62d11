import Cashier
import CashierStore
import Foundation

/// A provider that charges a payer later, without them present, under an agreement they signed
/// once (WeChat Pay's 委托代扣 `/papay/*` + `pappayapply`, Alipay's 周期扣款
/// `alipay.user.agreement.*` + `alipay.trade.pay` with `agreement_params`, an Apple Pay processor's
/// stored payment method charged merchant-initiated). Each charge is an ordinary payment of an
/// ordinary order: its result arrives, is queried and is refunded as any other.
protocol Recurring: PaymentAdapter {
    /// The merchant the provider knows (`mch_id`, Alipay's app, the processor's merchant account):
    /// a notification naming another is not this adapter's.
    var recurringMerchantID: String { get }
    /// The methods a payer can sign with here (`wechat.app`, `wechat.jsapi`, `wechat.h5`,
    /// `alipay.app`, `alipay.page`, `applepay`).
    var signingMethods: Set<PaymentMethod> { get }

    /// What the payer's app opens to sign `agreement` (reserved here, `pending`). The provider
    /// tells `notifyURL` when the payer signed or ended it.
    /// - Throws: `PaymentError.providerRejected` when the provider refused.
    func signAgreement(_ agreement: StoredAgreement, notifyURL: String, returnURL: String?) async throws -> AgreementLaunch

    /// Where `agreement` stands at the provider; `nil` when the provider has no such agreement (not signed yet).
    func agreementProgress(_ agreement: StoredAgreement) async throws -> AgreementProgress?

    /// Ends `agreement` at the provider (the merchant's termination). - Returns: what the provider says of it now.
    func terminateAgreement(_ agreement: StoredAgreement, remark: String) async throws -> AgreementProgress

    /// Charges `payment` (reserved, of `order`) under the active `agreement`, the payer absent.
    /// Idempotent by the payment's trade number. A charge whose result comes later is confirmed
    /// by its notification to `notifyURL` or by ``PaymentAdapter/query(_:)``.
    /// - Returns: what the provider answered.
    /// - Throws: any error when the answer is unknown (the charge is then queried, never sent twice under another number).
    func charge(_ payment: StoredPayment, order: StoredOrder, under agreement: StoredAgreement, notifyURL: String) async throws
        -> ChargeAnswer

    /// A verified sign or unsign notification read as reports (WeChat Pay's contract XML with
    /// `change_type` ADD/DELETE, Alipay's `dut_user_sign` / `dut_user_unsign`); `[]` when `message`
    /// is not one (the default, for a provider that sends none).
    func agreementEvents(_ message: InboundMessage) async throws -> [AgreementReport]

    /// Apple Pay: the first, customer-initiated payment that stores the payer's method at the
    /// processor (Stripe `setup_future_usage=off_session`, Adyen `storePaymentMethod`): authorises
    /// `token` for `payment` and answers the charge and the agreement's new state.
    /// - Throws: `PaymentError.invalidRequest` (the default) for a wallet whose payer signs in the wallet.
    func authorizeFirstCharge(_ payment: StoredPayment, order: StoredOrder, under agreement: StoredAgreement, token: Data)
        async throws -> (charge: ChargeAnswer, agreement: AgreementProgress)
}

extension Recurring {
    func agreementEvents(_ message: InboundMessage) async throws -> [AgreementReport] { [] }

    func authorizeFirstCharge(_ payment: StoredPayment, order: StoredOrder, under agreement: StoredAgreement, token: Data)
        async throws -> (charge: ChargeAnswer, agreement: AgreementProgress)
    {
        throw PaymentError(
            .invalidRequest, provider: provider,
            "this wallet's payer signs the agreement in the wallet, not with a first charge: open the agreement's launch")
    }
}

/// What the payer's app opens to sign an agreement, as `POST /v1/agreements` answers it under `launch`.
enum AgreementLaunch: Sendable, Equatable {
    /// A page to open (WeChat Pay's `entrustweb` / `h5entrustweb` address, Alipay's page-sign
    /// address): `{"kind":"url","url":…}`.
    case url(String)
    /// WeChat Pay's app pre-sign: the `pre_entrustweb_id` the app hands to
    /// `WXOpenBusinessWebviewReq` (business type 12): `{"kind":"wechat_pre_entrust","pre_entrustweb_id":…}`.
    case wechatPreEntrust(String)
    /// Alipay's app sign string for the SDK (`alipay.user.agreement.page.sign`, signed):
    /// `{"kind":"alipay_sign_string","sign_string":…}`.
    case alipaySignString(String)
    /// Apple Pay: the payment request with its `recurringPaymentRequest` for the sheet; the
    /// token goes to `POST /v1/agreements/{id}/authorize`: `{"kind":"applepay","payment_request":…}`.
    case applePayRequest(JSONValue)
}

/// What a provider answered a charge under an agreement.
enum ChargeAnswer: Sendable, Equatable {
    /// Paid at once (Alipay's `10000`, a processor's `succeeded`/`Authorised`).
    case paid(amount: Money, transactionID: String?)
    /// Accepted; the result comes later (WeChat Pay's `pappayapply` SUCCESS, `ACCEPT`).
    case accepted
    /// Declined: nothing moved. `retryable`: a later attempt may pass (insufficient balance,
    /// out of the period's window) rather than never (the agreement ended).
    case declined(reason: String, retryable: Bool)
}

/// A verified sign or unsign notification: which agreement, at which merchant, and where it stands.
struct AgreementReport: Sendable, Equatable {
    let provider: PaymentProvider
    let merchantID: String
    /// The merchant's number for the agreement (`contract_code`, `external_agreement_no`).
    let externalNo: String
    let progress: AgreementProgress
    let notificationID: String
}
