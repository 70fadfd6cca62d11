public import Cashier
public import Foundation

extension WeChatPay.V2 {
    /// Which withholding contract a call is about: WeChat Pay's `contract_id`, or the merchant's
    /// `plan_id` + `contract_code`.
    public enum ContractKey: Sendable, Equatable {
        /// `contract_id`, as WeChat Pay numbered the contract when it was signed.
        case id(String)
        /// `plan_id` and `contract_code`, as the merchant asked for the contract.
        case code(planID: String, contractCode: String)

        /// The fields that name it in a request.
        var fields: [(String, String)] {
            switch self {
            case .id(let id): [("contract_id", id)]
            case .code(let planID, let contractCode): [("plan_id", planID), ("contract_code", contractCode)]
            }
        }

        /// `true` when `document` names this contract.
        func isNamed(by document: XMLDocument) -> Bool {
            switch self {
            case .id(let id): document["contract_id"] == id
            case .code(let planID, let contractCode): document["plan_id"] == planID && document["contract_code"] == contractCode
            }
        }
    }

    /// How a withholding contract ended (`contract_termination_mode`).
    public enum TerminationMode: String, Sendable, CaseIterable {
        /// `0`: it has not ended.
        case none = "0"
        /// `1`: it expired.
        case expired = "1"
        /// `2`: the payer ended it in the WeChat wallet.
        case user = "2"
        /// `3`: the merchant ended it by the API (`papay/deletecontract`).
        case merchantAPI = "3"
        /// `4`: the merchant ended it in the merchant platform.
        case merchantPlatform = "4"
        /// `5`: the payer's account was closed.
        case accountClosed = "5"

        /// A few words for people.
        public var summary: String {
            switch self {
            case .none: "not terminated"
            case .expired: "expired"
            case .user: "terminated by the payer"
            case .merchantAPI: "terminated by the merchant (API)"
            case .merchantPlatform: "terminated by the merchant (merchant platform)"
            case .accountClosed: "the payer's account was closed"
            }
        }
    }

    /// A withholding contract as `papay/querycontract` answers it.
    public struct Contract: Sendable, Equatable {
        /// Where a contract stands (`contract_state`).
        public enum State: String, Sendable {
            /// `0`: signed; the merchant may deduct under it.
            case signed = "0"
            /// `1`: terminated; no deduction is made under it again.
            case terminated = "1"
        }

        /// `contract_id`: WeChat Pay's number for it.
        public let contractID: String
        /// `contract_code`: the merchant's number for it.
        public let contractCode: String
        /// `plan_id`: its template.
        public let planID: String
        /// `contract_state`.
        public let state: State
        /// `openid`: the payer, under the merchant's appid.
        public let openID: String?
        /// `contract_signed_time`.
        public let signedAt: Date?
        /// `contract_expired_time`.
        public let expiresAt: Date?
        /// `contract_terminated_time`, once terminated.
        public let terminatedAt: Date?
        /// `contract_termination_mode`, once terminated.
        public let terminationMode: TerminationMode?
        /// `contract_termination_remark`: why the merchant ended it.
        public let terminationRemark: String?
        /// Every field of the answer.
        public let document: XMLDocument

        /// Reads a verified `papay/querycontract` answer.
        /// - Parameter document: the answer, already verified.
        /// - Throws: `PaymentError.malformedMessage` when it lacks the contract's numbers or state.
        public init(_ document: XMLDocument) throws {
            guard let contractID = document["contract_id"], !contractID.isEmpty, let planID = document["plan_id"],
                let contractCode = document["contract_code"]
            else {
                throw PaymentError(
                    .malformedMessage, provider: .wechatV2, "the contract answer lacks contract_id, plan_id or contract_code")
            }
            guard let state = document["contract_state"].flatMap(State.init(rawValue:)) else {
                throw PaymentError(.malformedMessage, provider: .wechatV2, "contract_state is missing or neither 0 nor 1")
            }
            self.contractID = contractID
            self.contractCode = contractCode
            self.planID = planID
            self.state = state
            openID = document["openid"].flatMap { $0.isEmpty ? nil : $0 }
            signedAt = Self.time(document["contract_signed_time"])
            expiresAt = Self.time(document["contract_expired_time"])
            terminatedAt = Self.time(document["contract_terminated_time"])
            terminationMode = document["contract_termination_mode"].flatMap(TerminationMode.init(rawValue:))
            terminationRemark = document["contract_termination_remark"].flatMap { $0.isEmpty ? nil : $0 }
            self.document = document
        }

        /// A `yyyy-MM-dd HH:mm:ss` Beijing time, as papay writes its times.
        static func time(_ text: String?) -> Date? {
            guard let text, !text.isEmpty else { return nil }
            return BeijingTime.formatter("yyyy-MM-dd HH:mm:ss").date(from: text)
        }
    }
}
