/// `{"error": {"code": …, "message": …}}`: the body of every error answer
/// (``HTTPServerResponse/error(status:code:message:)``).
public struct HTTPErrorBody: Encodable, Sendable {
    public struct Detail: Encodable, Sendable {
        /// What went wrong, for code to branch on.
        public let code: String
        /// What to fix, for people.
        public let message: String
    }

    public let error: Detail

    public init(code: String, message: String) {
        error = Detail(code: code, message: message)
    }
}
