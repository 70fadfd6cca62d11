import Cashier
import CashierCrypto
public import Foundation

extension ApplePay {
    /// One Stripe webhook event (`{"id": "evt_…", "type": "charge.dispute.funds_withdrawn",
    /// "data": {"object": …}}`), verified by its `Stripe-Signature` header before anything reads it.
    ///
    /// The header is `t={unix time},v1={hex}[,v1=…]`: each `v1` is HMAC-SHA256, keyed with the
    /// endpoint's signing secret (`whsec_…`, as the Dashboard shows it, prefix included), over
    /// `{t}.{the raw body}`. One `v1` must match (several appear while a secret is being rolled),
    /// and `t` must be no older than the tolerance (5 minutes, as Stripe's libraries check), so a
    /// captured delivery cannot be replayed later. Only the object's fields Cashier reads are kept.
    public struct StripeEvent: Sendable, Equatable {
        /// `evt_…`.
        public var id: String
        /// `charge.dispute.created`, `charge.dispute.funds_withdrawn`, `charge.refund.updated`, …
        public var type: String
        public var livemode: Bool
        public var object: Object

        /// The fields of `data.object` Cashier reads (disputes and refunds).
        public struct Object: Sendable, Equatable {
            /// `dp_…`, `re_…`, `ch_…`, `pi_…`.
            public var id: String
            /// `dispute`, `refund`, `charge`, `payment_intent`, …
            public var kind: String
            /// The PaymentIntent the object belongs to (itself, for a PaymentIntent).
            public var paymentIntent: String?
            /// Minor units, and the currency code in upper case.
            public var amount: Int64?
            public var currency: String?
            /// A dispute's `needs_response`, `won`, `lost`, …; a refund's `succeeded`, `pending`, `failed`,
            /// `canceled`; a PaymentIntent's `requires_capture`, `canceled`, ….
            public var status: String?
            /// A dispute's `reason` (`fraudulent`, …), a refund's `failure_reason`, or a PaymentIntent's
            /// `cancellation_reason` (`automatic`: its authorisation lapsed) or, for one that failed, its
            /// `last_payment_error.message`.
            public var reason: String?
            /// The object's `metadata` (a refund's carries `cashier_refund`).
            public var metadata: [String: String]
            /// A dispute's `evidence_details.due_by` (Unix seconds): the last moment to answer it.
            public var evidenceDueBy: Int64?

            public init(
                id: String, kind: String, paymentIntent: String? = nil, amount: Int64? = nil, currency: String? = nil,
                status: String? = nil, reason: String? = nil, metadata: [String: String] = [:], evidenceDueBy: Int64? = nil
            ) {
                self.id = id
                self.kind = kind
                self.paymentIntent = paymentIntent
                self.amount = amount
                self.currency = currency
                self.status = status
                self.reason = reason
                self.metadata = metadata
                self.evidenceDueBy = evidenceDueBy
            }
        }

        /// How old a signature's timestamp may be, as Stripe's libraries default.
        public static let defaultTolerance: TimeInterval = 300

        public init(id: String, type: String, livemode: Bool = false, object: Object) {
            self.id = id
            self.type = type
            self.livemode = livemode
            self.object = object
        }

        /// The event in `body`, once `signatureHeader` verifies over it under `secret`.
        /// - Throws: `PaymentError.signatureMismatch` when no `v1` signature matches, or the
        ///   timestamp is older than `tolerance`; `.malformedMessage` for a header or body that is
        ///   not Stripe's shape; `.invalidConfiguration` for an empty secret.
        public static func verified(
            _ body: Data, signatureHeader: String?, secret: String, tolerance: TimeInterval = defaultTolerance, now: Date = Date()
        ) throws -> StripeEvent {
            let key = try Self.key(secret)
            var timestamp: Int64?
            var signatures: [[UInt8]] = []
            for part in (signatureHeader ?? "").split(separator: ",") {
                let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard pair.count == 2 else { continue }
                if pair[0] == "t" { timestamp = Int64(pair[1]) }
                if pair[0] == "v1", let bytes = try? Hex.decode(pair[1]) { signatures.append(bytes) }
            }
            guard let timestamp, !signatures.isEmpty else {
                throw PaymentError(
                    .malformedMessage, provider: .applePay, "the Stripe-Signature header has no timestamp (t=) or no v1 signature")
            }
            let signed = Array("\(timestamp).".utf8) + Array(body)
            guard signatures.contains(where: { key.isValidAuthenticationCode($0, for: signed) }) else {
                throw PaymentError(
                    .signatureMismatch, provider: .applePay,
                    "no v1 signature of the Stripe-Signature header verifies under the configured signing secret")
            }
            guard Double(timestamp) >= now.timeIntervalSince1970 - tolerance else {
                throw PaymentError(
                    .signatureMismatch, provider: .applePay,
                    "the Stripe-Signature timestamp is more than \(Int(tolerance)) seconds old: a replayed delivery is refused")
            }
            return try Self(json: body)
        }

        /// The `Stripe-Signature` header Stripe sends with `body` at `timestamp` (what the sandbox posts).
        public static func signatureHeader(for body: Data, secret: String, timestamp: Date = Date()) throws -> String {
            let time = Int64(timestamp.timeIntervalSince1970)
            let code = try key(secret).authenticationCode(for: Array("\(time).".utf8) + Array(body))
            return "t=\(time),v1=\(Hex.encode(code))"
        }

        /// Throws unless `secret` is usable as a signing secret.
        public static func checkSecret(_ secret: String) throws {
            _ = try key(secret)
        }

        private static func key(_ secret: String) throws -> HMACKey {
            guard !secret.isEmpty, !secret.contains(where: \.isWhitespace) else {
                throw PaymentError(
                    .invalidConfiguration, provider: .applePay,
                    "the Stripe webhook signing secret is the endpoint's whsec_… (Dashboard → Developers → Webhooks → the endpoint → Signing secret)"
                )
            }
            return HMACKey(key: Array(secret.utf8))
        }

        /// Reads an event's JSON (no signature check: use ``verified(_:signatureHeader:secret:tolerance:now:)``).
        init(json body: Data) throws {
            guard let event = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any], let id = event["id"] as? String,
                let type = event["type"] as? String, let object = (event["data"] as? [String: Any])?["object"] as? [String: Any],
                let objectID = object["id"] as? String, let kind = object["object"] as? String
            else {
                throw PaymentError(
                    .malformedMessage, provider: .applePay,
                    "a Stripe event is a JSON object with id, type and data.object (with id and object)")
            }
            var amount: Int64?
            if let given = object["amount"] {
                guard let number = given as? NSNumber, let exact = Int64(exactly: number.doubleValue) else {
                    throw PaymentError(.malformedMessage, provider: .applePay, "the event's \(kind).amount is not minor units")
                }
                amount = exact
            }
            let intent = kind == "payment_intent" ? objectID : Self.reference(object["payment_intent"])
            var metadata: [String: String] = [:]
            for (name, value) in object["metadata"] as? [String: Any] ?? [:] {
                if let text = value as? String { metadata[name] = text }
            }
            self.init(
                id: id, type: type, livemode: event["livemode"] as? Bool ?? false,
                object: Object(
                    id: objectID, kind: kind, paymentIntent: intent, amount: amount,
                    currency: (object["currency"] as? String)?.uppercased(),
                    status: object["status"] as? String,
                    reason: (object["failure_reason"] as? String) ?? (object["cancellation_reason"] as? String)
                        ?? ((object["last_payment_error"] as? [String: Any])?["message"] as? String)
                            ?? (kind == "refund" ? nil : object["reason"] as? String),
                    metadata: metadata,
                    evidenceDueBy: ((object["evidence_details"] as? [String: Any])?["due_by"] as? NSNumber)?.int64Value))
        }

        /// An id, or an expanded object's id.
        private static func reference(_ value: Any?) -> String? {
            (value as? String) ?? ((value as? [String: Any])?["id"] as? String)
        }
    }
}
