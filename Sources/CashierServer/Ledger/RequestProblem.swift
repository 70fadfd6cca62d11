import Cashier
import Foundation

/// A request the API refuses before doing anything (`invalid_request`): the message names
/// the field and says what it takes. 400 when the request does not match the OpenAPI document;
/// 422 (``unprocessable(_:)``) when it does but a rule across fields, or the server's
/// configuration, refuses it — so a schema-valid request is never answered 400.
struct RequestProblem: Error, Sendable {
    let message: String
    /// 400 or 422.
    let status: Int

    init(_ message: String) {
        self.message = message
        status = 400
    }

    private init(message: String, status: Int) {
        self.message = message
        self.status = status
    }

    /// A request these credentials may not make (403, `forbidden`).
    static func forbidden(_ message: String) -> RequestProblem { RequestProblem(message: message, status: 403) }

    /// A request the document allows that a rule refuses (422).
    static func unprocessable(_ message: String) -> RequestProblem { RequestProblem(message: message, status: 422) }

    /// A JSON body decoded as `type`; a body that does not decode is refused naming the field
    /// (`items[0].amount_minor: expected a whole number that fits in 64 bits`) after `expected`,
    /// and so is a field `type` does not read (``RequestFields``): a typo is named, not ignored.
    /// - Parameter emptyIsObject: an empty body reads as `{}` (a body whose every field is optional).
    static func decode<T: Decodable>(_ type: T.Type, from given: [UInt8], expected: String, emptyIsObject: Bool = false) throws -> T {
        let body = emptyIsObject && given.allSatisfy({ [0x20, 0x09, 0x0A, 0x0D].contains($0) }) ? Array("{}".utf8) : given
        // Checked first: a misspelt required field is named as the typo, not as missing. (A body
        // that is not JSON is left to the decoder, which says so.)
        if let (value, repeated) = try? JSONReader.parseNamingRepeats(body) {
            if let repeated { throw RequestProblem("\(KeySuggestion.quoted(repeated)) is given more than once: give it once") }
            if let unknown = try RequestFields.of(type).unknownField(in: value) { throw RequestProblem(unknown) }
        }
        do {
            return try JSONDecoder().decode(type, from: Data(body))
        } catch let error as DecodingError {
            throw RequestProblem(explain(error).map { "\($0); expected \(expected)" } ?? "expected \(expected)")
        } catch {
            throw RequestProblem("expected \(expected)")
        }
    }

    /// What is wrong where, from a decoding error: `nil` when the body is not JSON at all.
    static func explain(_ error: DecodingError) -> String? {
        func path(_ keys: [any CodingKey]) -> String {
            keys.reduce("") { text, key in
                if let index = key.intValue { return text + "[\(index)]" }
                return text.isEmpty ? key.stringValue : text + "." + key.stringValue
            }
        }
        switch error {
        case .typeMismatch(let type, let context):
            return "\(path(context.codingPath)): expected \(describe(type))"
        case .valueNotFound(let type, let context):
            return "\(path(context.codingPath)): expected \(describe(type)), not null"
        case .keyNotFound(let key, let context):
            return "\(path(context.codingPath + [key])) is missing"
        case .dataCorrupted(let context) where !context.codingPath.isEmpty:
            return "\(path(context.codingPath)): expected a number that fits (a whole number within 64 bits)"
        default:
            return nil
        }
    }

    /// What a field takes, in the request's words: JSONDecoder names the Swift type it wanted
    /// (`[String: Any]` for an object, `[Any]` for a list).
    static func describe(_ type: Any.Type) -> String {
        switch type {
        case is any FixedWidthInteger.Type: "a whole number"
        case is any BinaryFloatingPoint.Type: "a number"
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        case is any DecodedList.Type: "a list"
        case is any DecodedObject.Type: "an object"
        default: "another type"
        }
    }

    /// Checks that `text`, when there is one, is at most `limit` UTF-8 bytes — a provider's rule
    /// (`why`), so a longer text is a 422 naming the field.
    static func check(_ text: String?, bytes limit: Int, _ field: String, why: String) throws {
        guard let count = text?.utf8.count, count > limit else { return }
        throw RequestProblem.unprocessable("\(field) must be at most \(limit) UTF-8 bytes (\(why)), not \(count)")
    }

    /// Checks that `value` is within `range`.
    static func check<T: Comparable & CustomStringConvertible>(_ value: T, in range: ClosedRange<T>, _ field: String, unit: String = "")
        throws
    {
        guard range.contains(value) else {
            throw RequestProblem("\(field) must be \(range.lowerBound) to \(range.upperBound)\(unit), not \(value)")
        }
    }
}

/// `[Any]` and the other arrays JSONDecoder names for a list it did not find.
private protocol DecodedList {}
extension Array: DecodedList {}

/// `[String: Any]` and the other dictionaries JSONDecoder names for an object it did not find.
private protocol DecodedObject {}
extension Dictionary: DecodedObject {}
