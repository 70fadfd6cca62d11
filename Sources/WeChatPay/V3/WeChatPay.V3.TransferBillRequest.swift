import Cashier
public import CashierCrypto
import Foundation

extension WeChatPay.V3 {
    /// What a merchant transfer (商家转账) sends: to whom, how much, why.
    ///
    /// ``body(encryptingFor:)`` checks it as WeChat would before anything is sent, and
    /// encrypts `user_name` (RSA-OAEP with SHA-1, as WeChat requires) with the platform key
    /// whose serial goes in `Wechatpay-Serial`. WeChat requires the name from
    /// ``nameRequiredFrom`` fen (2,000 yuan) on; the request is refused without it.
    ///
    /// ```swift
    /// let request = WeChatPay.V3.TransferBillRequest(
    ///     appID: "wxd678efh567hg6787", outBillNo: "plfk2020042013", sceneID: "1000", openID: openID,
    ///     amount: 400, remark: "新会员开通有礼", reportInfos: [.init(type: "活动名称", content: "新会员有礼")])
    /// let bill = try await client.createTransferBill(request)
    /// ```
    public struct TransferBillRequest: Sendable, Equatable {
        /// One of `transfer_scene_report_infos`: what the scene asks the merchant to report.
        public struct ReportInfo: Sendable, Equatable {
            /// `info_type`, e.g. `活动名称`, `奖励说明`.
            public let type: String
            /// `info_content`.
            public let content: String
            public init(type: String, content: String) {
                self.type = type
                self.content = content
            }
        }

        /// From this amount on (fen: 2,000 yuan) WeChat requires the payee's real name.
        public static let nameRequiredFrom: Int64 = 200_000

        /// `appid` the payee's `openid` belongs to.
        public var appID: String
        /// `out_bill_no`: letters and digits, at most 32; retries must reuse it.
        public var outBillNo: String
        /// `transfer_scene_id`, e.g. `1000` (现金营销), `1005` (佣金报酬).
        public var sceneID: String
        /// `openid` of the payee under ``appID``.
        public var openID: String
        /// `transfer_amount`, in fen.
        public var amount: Int64
        /// `transfer_remark`, at most 32 characters, shown to the payee.
        public var remark: String
        /// The payee's real name, in clear here: it is sent encrypted.
        public var userName: String?
        /// `notify_url` for `MCHTRANSFER.BILL.FINISHED`.
        public var notifyURL: String?
        /// `user_recv_perception`, what the payee sees (e.g. `现金奖励`).
        public var userRecvPerception: String?
        /// `transfer_scene_report_infos`, required.
        public var reportInfos: [ReportInfo]

        public init(
            appID: String, outBillNo: String, sceneID: String, openID: String, amount: Int64, remark: String, userName: String? = nil,
            notifyURL: String? = nil, userRecvPerception: String? = nil, reportInfos: [ReportInfo]
        ) {
            self.appID = appID
            self.outBillNo = outBillNo
            self.sceneID = sceneID
            self.openID = openID
            self.amount = amount
            self.remark = remark
            self.userName = userName
            self.notifyURL = notifyURL
            self.userRecvPerception = userRecvPerception
            self.reportInfos = reportInfos
        }

        /// `true` when `number` is an `out_bill_no` WeChat takes: 1 to 32 ASCII letters and digits.
        public static func isValidBillNumber(_ number: String) -> Bool {
            !number.isEmpty && number.utf8.count <= 32 && number.utf8.allSatisfy(\.isASCIIAlphanumeric)
        }

        /// Checks the request as WeChat would. - Throws: `PaymentError.invalidRequest`, saying what is wrong.
        public func validate() throws {
            func refuse(_ message: String) -> PaymentError { PaymentError(.invalidRequest, provider: .wechatV3, message) }
            guard Self.isValidBillNumber(outBillNo) else { throw refuse("out_bill_no must be 1 to 32 letters and digits") }
            guard amount > 0 else { throw refuse("transfer_amount must be a positive number of fen") }
            guard !appID.isEmpty, !openID.isEmpty, !sceneID.isEmpty else {
                throw refuse("appid, openid and transfer_scene_id are required")
            }
            guard !remark.isEmpty, remark.count <= 32 else { throw refuse("transfer_remark must be 1 to 32 characters") }
            guard !reportInfos.isEmpty else { throw refuse("transfer_scene_report_infos is required") }
            if amount >= Self.nameRequiredFrom, userName?.isEmpty ?? true {
                throw refuse("user_name is required from 2000 yuan (\(Self.nameRequiredFrom) fen) on")
            }
        }

        /// The request body, with `user_name` encrypted for `key` when there is one.
        /// - Parameters:
        ///   - key: the platform key (certificate or WeChat Pay public key) the name is encrypted
        ///     for; its serial must go in `Wechatpay-Serial`. Needed only when ``userName`` is set.
        /// - Throws: `PaymentError.invalidRequest` (see ``validate()``), or when a name is given and no key.
        public func body(encryptingFor key: RSAPublicKey?) throws -> [String: Any] {
            try validate()
            var body: [String: Any] = [
                "appid": appID, "out_bill_no": outBillNo, "transfer_scene_id": sceneID, "openid": openID, "transfer_amount": amount,
                "transfer_remark": remark,
                "transfer_scene_report_infos": reportInfos.map { ["info_type": $0.type, "info_content": $0.content] },
            ]
            if let userName, !userName.isEmpty {
                body["user_name"] = try SensitiveField.encrypt(userName, for: key, field: "user_name")
            }
            if let notifyURL { body["notify_url"] = notifyURL }
            if let userRecvPerception { body["user_recv_perception"] = userRecvPerception }
            return body
        }
    }
}
