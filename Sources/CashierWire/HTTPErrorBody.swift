/// `{"error": {"code": …, "message": …}}`: the body of every error answer.
///
/// ```swift
/// let failure = try JSONDecoder().decode(HTTPErrorBody.self, from: body)
/// if failure.error.code == "rate_limited" { … }
/// ```
public struct HTTPErrorBody: Codable, Sendable, Equatable {
    public struct Detail: Codable, Sendable, Equatable {
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
