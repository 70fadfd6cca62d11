import Cashier
public import CashierCrypto
public import Foundation

extension WeChatPay.V3 {
    /// A payer's complaint (消费者投诉 2.0), as `/v3/merchant-service/complaints-v2` lists it and
    /// `…/complaints-v2/{complaint_id}` details it.
    ///
    /// WeChat expects the merchant's first answer within 24 hours of ``complaintTime`` and the
    /// complaint handled within 72 (``responseDeadline(after:)``, ``settlementDeadline(after:)``);
    /// past those it steps in, may refund the payer from the merchant's funds, and counts it
    /// against the merchant. ``payerPhone`` is encrypted for the merchant
    /// (``decryptedPayerPhone(with:)``).
    public struct Complaint: Sendable, Equatable, Decodable {
        /// Where a complaint is: `PENDING` (not answered), `PROCESSING` (answered), `PROCESSED` (done).
        public struct State: RawRepresentable, Hashable, Sendable, Decodable {
            public let rawValue: String
            public init(rawValue: String) { self.rawValue = rawValue }
            /// 待处理: the merchant has not answered yet.
            public static let pending = State(rawValue: "PENDING")
            /// 处理中: answered, not finished.
            public static let processing = State(rawValue: "PROCESSING")
            /// 已处理完成: finished (completed, refunded, refused, or withdrawn by the payer).
            public static let processed = State(rawValue: "PROCESSED")
        }

        /// What the payer complains of: `REFUND` (wants money back), `SERVICE_NOT_WORK`, `OTHERS`.
        public struct ProblemType: RawRepresentable, Hashable, Sendable, Decodable {
            public let rawValue: String
            public init(rawValue: String) { self.rawValue = rawValue }
            /// 申请退款: the payer asks for ``Complaint/applyRefundAmount`` back (``Client/updateRefundProgress(complaintID:_:)``).
            public static let refund = ProblemType(rawValue: "REFUND")
            /// 服务权益未生效.
            public static let serviceNotWork = ProblemType(rawValue: "SERVICE_NOT_WORK")
            /// 其他类型.
            public static let others = ProblemType(rawValue: "OTHERS")
        }

        /// A trade the complaint concerns (`complaint_order_info`).
        public struct Order: Sendable, Equatable, Decodable {
            /// WeChat's transaction id.
            public let transactionID: String
            /// The merchant's trade number.
            public let outTradeNo: String
            /// The trade's amount, in fen.
            public let amount: Int64

            enum CodingKeys: String, CodingKey {
                case transactionID = "transaction_id"
                case outTradeNo = "out_trade_no"
                case amount
            }
        }

        /// Files attached to a complaint or a step of it (`complaint_media_list`).
        public struct Media: Sendable, Equatable, Decodable {
            /// `USER_COMPLAINT_IMAGE` (the payer's) or `OPERATION_IMAGE` (from a step).
            public let mediaType: String
            /// Each file's URL on the gateway: fetch with ``Client/complaintImage(at:)`` (a signed GET).
            public let mediaURLs: [String]

            enum CodingKeys: String, CodingKey {
                case mediaType = "media_type"
                case mediaURLs = "media_url"
            }

            public init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                mediaType = try container.decodeIfPresent(String.self, forKey: .mediaType) ?? ""
                // An array of URLs, as documented; one URL alone is taken too (gopay#326 met both).
                if let urls = try? container.decodeIfPresent([String].self, forKey: .mediaURLs) {
                    mediaURLs = urls
                } else {
                    mediaURLs = (try container.decodeIfPresent(String.self, forKey: .mediaURLs)).map { [$0] } ?? []
                }
            }

            /// - Parameters:
            ///   - mediaType: `USER_COMPLAINT_IMAGE` or `OPERATION_IMAGE`.
            ///   - mediaURLs: the files' URLs.
            public init(mediaType: String, mediaURLs: [String]) {
                self.mediaType = mediaType
                self.mediaURLs = mediaURLs
            }
        }

        /// `complaint_id`.
        public let id: String
        /// `complaint_time`, RFC 3339 in Beijing time (`2026-12-01T10:00:00+08:00`).
        public let complaintTime: String
        /// `complaint_detail`: the payer's own words.
        public let detail: String
        /// `complaint_state`.
        public let state: State
        /// `complainted_mchid`: the merchant complained about (a sub-merchant, for a service provider).
        public let complaintedMchID: String?
        /// `payer_phone`, encrypted with the merchant's API certificate (``decryptedPayerPhone(with:)``).
        public let payerPhone: String?
        /// `payer_openid` (detail only).
        public let payerOpenID: String?
        /// `complaint_order_info`.
        public let orders: [Order]
        /// `complaint_media_list`.
        public let media: [Media]
        /// `complaint_full_refunded`: every trade of it refunded in full.
        public let fullyRefunded: Bool
        /// `incoming_user_response`: a message from the payer waits for an answer.
        public let incomingUserResponse: Bool
        /// `problem_description`.
        public let problemDescription: String
        /// `user_complaint_times`: how often this payer complained of this trade.
        public let userComplaintTimes: Int
        /// `problem_type`.
        public let problemType: ProblemType?
        /// `apply_refund_amount`, in fen, for a ``ProblemType/refund`` complaint.
        public let applyRefundAmount: Int64?
        /// `user_tag_list` (`TRUSTED`, `HIGH_RISK`).
        public let userTags: [String]
        /// `in_platform_service`: WeChat is helping the payer (平台协助).
        public let inPlatformService: Bool
        /// `need_immediate_service`.
        public let needImmediateService: Bool

        enum CodingKeys: String, CodingKey {
            case id = "complaint_id"
            case complaintTime = "complaint_time"
            case detail = "complaint_detail"
            case state = "complaint_state"
            case complaintedMchID = "complainted_mchid"
            case payerPhone = "payer_phone"
            case payerOpenID = "payer_openid"
            case orders = "complaint_order_info"
            case media = "complaint_media_list"
            case fullyRefunded = "complaint_full_refunded"
            case incomingUserResponse = "incoming_user_response"
            case problemDescription = "problem_description"
            case userComplaintTimes = "user_complaint_times"
            case problemType = "problem_type"
            case applyRefundAmount = "apply_refund_amount"
            case userTags = "user_tag_list"
            case inPlatformService = "in_platform_service"
            case needImmediateService = "need_immediate_service"
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(String.self, forKey: .id)
            complaintTime = try container.decode(String.self, forKey: .complaintTime)
            detail = try container.decodeIfPresent(String.self, forKey: .detail) ?? ""
            state = try container.decode(State.self, forKey: .state)
            complaintedMchID = try container.decodeIfPresent(String.self, forKey: .complaintedMchID)
            payerPhone = try container.decodeIfPresent(String.self, forKey: .payerPhone)
            payerOpenID = try container.decodeIfPresent(String.self, forKey: .payerOpenID)
            orders = try container.decodeIfPresent([Order].self, forKey: .orders) ?? []
            media = try container.decodeIfPresent([Media].self, forKey: .media) ?? []
            fullyRefunded = try container.decodeIfPresent(Bool.self, forKey: .fullyRefunded) ?? false
            incomingUserResponse = try container.decodeIfPresent(Bool.self, forKey: .incomingUserResponse) ?? false
            problemDescription = try container.decodeIfPresent(String.self, forKey: .problemDescription) ?? ""
            userComplaintTimes = try container.decodeIfPresent(Int.self, forKey: .userComplaintTimes) ?? 1
            problemType = try container.decodeIfPresent(ProblemType.self, forKey: .problemType)
            applyRefundAmount = try container.decodeIfPresent(Int64.self, forKey: .applyRefundAmount)
            userTags = try container.decodeIfPresent([String].self, forKey: .userTags) ?? []
            inPlatformService = try container.decodeIfPresent(Bool.self, forKey: .inPlatformService) ?? false
            needImmediateService = try container.decodeIfPresent(Bool.self, forKey: .needImmediateService) ?? false
        }

        /// Decodes a complaint document (a detail answer, or one entry of a list).
        /// - Throws: `PaymentError.malformedMessage` when it is not one.
        public static func decode(_ data: some Collection<UInt8>) throws -> Complaint {
            do {
                return try JSONDecoder().decode(Complaint.self, from: Data(data))
            } catch {
                throw PaymentError(.malformedMessage, provider: .wechatV3, "not a complaint document")
            }
        }

        /// When the payer complained (``complaintTime`` read), `nil` when it does not read as RFC 3339.
        public var complainedAt: Date? { Self.date(complaintTime) }

        /// How long WeChat gives the merchant to answer a new complaint: 24 hours.
        public static let responseWindow: TimeInterval = 24 * 3600
        /// How long WeChat gives the merchant to finish handling it: 72 hours.
        public static let settlementWindow: TimeInterval = 72 * 3600

        /// When the first answer is due: 24 hours after `complainedAt`.
        /// - Parameter complainedAt: when the payer complained (``complainedAt``).
        public static func responseDeadline(after complainedAt: Date) -> Date { complainedAt.addingTimeInterval(responseWindow) }

        /// When the complaint must be handled: 72 hours after `complainedAt`.
        /// - Parameter complainedAt: when the payer complained (``complainedAt``).
        public static func settlementDeadline(after complainedAt: Date) -> Date {
            complainedAt.addingTimeInterval(settlementWindow)
        }

        /// ``payerPhone`` decrypted (RSA-OAEP with SHA-1, as WeChat encrypts sensitive fields).
        /// - Parameter key: the merchant's API private key (`apiclient_key.pem`).
        /// - Returns: the phone number, `nil` when the complaint has none.
        /// - Throws: `PaymentError.decryptionFailure` when it was not encrypted for this key.
        public func decryptedPayerPhone(with key: RSAPrivateKey) throws -> String? {
            guard let payerPhone, !payerPhone.isEmpty else { return nil }
            do {
                return String(decoding: try key.decrypt(try Base64.decode(payerPhone), padding: .insecureOAEPSHA1), as: UTF8.self)
            } catch {
                throw PaymentError(.decryptionFailure, provider: .wechatV3, "payer_phone does not decrypt with this merchant's key")
            }
        }

        /// An RFC 3339 time as WeChat writes it (`2026-12-01T10:00:00+08:00`, or with milliseconds).
        /// - Parameter text: the time as written.
        public static func date(_ text: String) -> Date? {
            let formatter = ISO8601DateFormatter()
            if let date = formatter.date(from: text) { return date }
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            return formatter.date(from: text)
        }
    }

    /// One page of complaints (`/v3/merchant-service/complaints-v2`).
    public struct ComplaintPage: Sendable, Equatable, Decodable {
        /// The complaints on this page.
        public let complaints: [Complaint]
        /// The page size asked for.
        public let limit: Int
        /// Where the page starts.
        public let offset: Int
        /// How many there are in all (WeChat gives it with the first page).
        public let totalCount: Int?

        enum CodingKeys: String, CodingKey {
            case complaints = "data"
            case limit, offset
            case totalCount = "total_count"
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            complaints = try container.decodeIfPresent([Complaint].self, forKey: .complaints) ?? []
            limit = try container.decodeIfPresent(Int.self, forKey: .limit) ?? 0
            offset = try container.decodeIfPresent(Int.self, forKey: .offset) ?? 0
            totalCount = try container.decodeIfPresent(Int.self, forKey: .totalCount)
        }
    }

    /// Where complaint notifications go (`/v3/merchant-service/complaint-notifications`).
    public struct ComplaintNotifyURL: Sendable, Equatable, Decodable {
        /// The merchant that set it.
        public let mchID: String
        /// The URL (https, as WeChat requires).
        public let url: String

        enum CodingKeys: String, CodingKey {
            case mchID = "mchid"
            case url
        }
    }
}
